package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/spf13/cobra"
)

// VersionOptions are the inputs of `boardmesh version`.
type VersionOptions struct {
	IO   *IOStreams
	JSON bool
}

// versionInfo is what `boardmesh version` prints.
type versionInfo struct {
	Version string            `json:"version"`
	Commit  string            `json:"commit,omitempty"`
	Go      string            `json:"go"`
	OS      string            `json:"os"`
	Arch    string            `json:"arch"`
	Rules   map[string]string `json:"rules"`
}

func newCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print boardmesh's version and the rules version of each game",
		Long: `Print boardmesh's version (the module version, or the commit it was built
from), the Go version, and the rules version of every game: two peers play
together only when their rules versions agree.`,
		Example: `  boardmesh version
  boardmesh version --json | jq -r .rules.dominion`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func versionRun(opts *VersionOptions) error {
	v := versionInfo{Version: "(devel)", Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Rules: map[string]string{}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				if s.Value == "true" && v.Commit != "" {
					v.Commit += "+dirty"
				}
			}
		}
	}
	for _, g := range games.All() {
		v.Rules[g.Name] = g.Version
	}
	if opts.JSON {
		return json.NewEncoder(opts.IO.Out).Encode(v)
	}
	fmt.Fprintf(opts.IO.Out, "boardmesh %s", v.Version)
	if v.Commit != "" {
		fmt.Fprintf(opts.IO.Out, " (commit %s)", v.Commit)
	}
	fmt.Fprintf(opts.IO.Out, ", %s %s/%s\n", v.Go, v.OS, v.Arch)
	for _, g := range games.All() {
		fmt.Fprintf(opts.IO.Out, "  %-13s rules %s\n", g.Name, g.Version)
	}
	return nil
}

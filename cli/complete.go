package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/spf13/cobra"
)

// Shell completion: game names where a command takes a GAME, bot kinds for
// --bot and --bots (the named game's, or every game's), session ids for
// resume. Files only where a command takes a file (replay).

// completeGame completes the first argument with the game names.
func completeGame(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, g := range games.All() {
		if strings.HasPrefix(g.Name, toComplete) {
			out = append(out, g.Name+"\t"+g.Title)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeBot completes bot kinds: the game in the arguments, else every
// game's.
func completeBot(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	all := games.All()
	if len(args) > 0 {
		if g, err := games.Lookup(args[0]); err == nil {
			all = all[:0:0]
			all = append(all, g)
		}
	}
	// A comma-separated list: complete its last item.
	head, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		head, last = toComplete[:i+1], toComplete[i+1:]
	}
	seen := map[string]bool{}
	var out []string
	for _, g := range all {
		for _, b := range g.Bots {
			if !seen[b.Name] && strings.HasPrefix(b.Name, last) {
				seen[b.Name] = true
				out = append(out, head+b.Name+"\t"+b.Help)
			}
		}
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeSession completes the session ids of the home in use.
func completeSession(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	flag, _ := cmd.Flags().GetString("home")
	home, err := resolveHome(flag)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "session.json"))
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) > 1<<20 {
			continue
		}
		var m struct {
			Lobby, Game, Role string
		}
		if json.Unmarshal(b, &m) != nil || len(m.Lobby) < 12 {
			continue
		}
		if id := m.Lobby[:12]; strings.HasPrefix(id, toComplete) {
			out = append(out, id+"\t"+m.Game+" ("+m.Role+")")
		}
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// registerCompletions wires the completions into the command tree.
func registerCompletions(root *cobra.Command) {
	for _, c := range root.Commands() {
		switch c.Name() {
		case "play", "sim", "rules", "host":
			c.ValidArgsFunction = completeGame
		case "resume":
			c.ValidArgsFunction = completeSession
		case "games", "keys", "version":
			c.ValidArgsFunction = cobra.NoFileCompletions
		}
		for _, name := range []string{"bot", "bots"} {
			if f := c.Flags().Lookup(name); f != nil && f.Value.Type() != "int" {
				_ = c.RegisterFlagCompletionFunc(name, completeBot)
			}
		}
	}
}

package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// usageArgs wraps a cobra argument check so its failure is a UsageError
// (exit code 2 and a pointer to --help), like a bad flag.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &UsageError{Err: err}
		}
		return nil
	}
}

// numericFlag lists pflag's value types that hold a signed number.
var numericFlag = map[string]bool{"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"float32": true, "float64": true, "duration": true, "intSlice": true, "int32Slice": true, "int64Slice": true,
	"durationSlice": true, "float32Slice": true, "float64Slice": true}

// refuseNegative runs before every command (the root's
// PersistentPreRunE): a negative number given to any numeric flag (a
// count, a delay, a time-out, a port, a step) is a usage error, exit 2. No
// flag of boardmesh means anything by a negative value; the defaults some
// keep as "not set" (-1) are never typed.
func refuseNegative(cmd *cobra.Command, _ []string) error {
	var bad *pflag.Flag
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if bad != nil || !numericFlag[f.Value.Type()] {
			return
		}
		v := strings.Trim(f.Value.String(), "[]")
		for _, x := range strings.Split(v, ",") {
			if strings.HasPrefix(strings.TrimSpace(x), "-") {
				bad = f
			}
		}
	})
	if bad != nil {
		if strings.HasPrefix(bad.Value.Type(), "duration") {
			return usageErrorf("--%s %s: must be 0 or more (a duration such as 500ms, 30s or 2m)", bad.Name, bad.Value.String())
		}
		return usageErrorf("--%s %s: must be 0 or more", bad.Name, bad.Value.String())
	}
	return nil
}

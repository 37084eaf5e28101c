package cli

import "github.com/spf13/cobra"

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

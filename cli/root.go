package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// NewCmdRoot builds the boardmesh command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "boardmesh <command>",
		Short: "Board games between peers, with no server",
		Long: `boardmesh lets 2 to 8 people play board games with no server. Every player's
machine runs the same deterministic rules engine; moves travel signed over
libp2p; dice and draws come from a commit-reveal beacon that no player
controls; and every peer checks every other peer's state hash each turn, so a
cheat or a bug is caught the turn it happens.

Games: dragonslair (The Sleeping Dragon's Lair), dominion, infinitecity,
serpentcity. Start with 'boardmesh play', which seats you with bots on this
machine, or 'boardmesh rules GAME' to read a game's rules.`,
		Example: `  boardmesh play                      # you and bots, The Sleeping Dragon's Lair
  boardmesh play dominion --bots 2    # Dominion against two bots
  boardmesh rules dragonslair         # the rules in English
  boardmesh sim dragonslair --games 10000 --bots cautious,random`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// A word that is no command is a usage error (exit 2) with a hint,
		// not cobra's plain error (exit 1).
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q", args[0])
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %q?", s[0])
			}
			return usageErrorf("%s (the commands are listed by 'boardmesh --help')", msg)
		},
		RunE:                       func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		SuggestionsMinimumDistance: 2,
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	root.PersistentPreRunE = refuseNegative
	root.AddCommand(
		newCmdGames(f, nil),
		newCmdRules(f, nil),
		newCmdSim(f, nil),
		newCmdKeys(f, nil),
		newCmdPlay(f, nil),
		newCmdHost(f, nil),
		newCmdJoin(f, nil),
		newCmdResume(f, nil),
		newCmdSpectate(f, nil),
		newCmdRelay(f, nil),
		newCmdBench(f),
		newCmdReplay(f, nil),
		newCmdVersion(f, nil),
		// More commands register here, one line each.
	)
	registerCompletions(root)
	return root
}

// Execute runs boardmesh with the process's arguments and exits with the
// code that matches the outcome. Ctrl-C cancels the command's context, so
// long commands stop cleanly and say so.
func Execute() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	io := SystemIO()
	root := NewCmdRoot(&Factory{IO: io})
	if cmd, _, err := root.Find(os.Args[1:]); err == nil {
		limitPeerMemory(cmd.Name())
	}
	err := root.ExecuteContext(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			fmt.Fprintln(io.ErrOut, "boardmesh: stopped (interrupted)")
			os.Exit(ExitCancelled)
		}
		fmt.Fprintln(io.ErrOut, "boardmesh: "+err.Error())
		var u *UsageError
		if errors.As(err, &u) {
			fmt.Fprintln(io.ErrOut, "Run 'boardmesh --help' or 'boardmesh <command> --help' for usage.")
		}
	}
	os.Exit(exitCode(err))
}

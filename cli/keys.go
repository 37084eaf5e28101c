package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/boardmesh/boardmesh/p2p"
	"github.com/spf13/cobra"
)

// KeysOptions are the inputs of `boardmesh keys`.
type KeysOptions struct {
	IO *IOStreams

	Home   string
	Create bool
	JSON   bool
}

func newCmdKeys(f *Factory, runF func(*KeysOptions) error) *cobra.Command {
	opts := &KeysOptions{IO: f.IO, Create: true}
	var noCreate bool
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Show or create this machine's identity",
		Long: `Show this machine's identity: the ed25519 key that signs every move you make
and the peer ID other players see. The first run creates the key and stores it
(mode 0600) in the boardmesh home: --home, else $BOARDMESH_HOME, else the
user's config directory (~/.config/boardmesh on Linux). Keep it private: it is
what proves a move was yours.`,
		Example: `  boardmesh keys
  boardmesh keys --json
  boardmesh keys --home /tmp/alice   # a second identity for a second player`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Create = !noCreate
			if runF != nil {
				return runF(opts)
			}
			return keysRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Home, "home", "", "boardmesh home directory (default $"+HomeEnv+" or the user config dir)")
	cmd.Flags().BoolVar(&noCreate, "no-create", false, "only show an existing identity; fail if there is none")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

type keysInfo struct {
	PeerID  string `json:"peer_id"`
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Type    string `json:"type"`
}

func keysRun(opts *KeysOptions) error {
	home, err := resolveHome(opts.Home)
	if err != nil {
		return err
	}
	var id *p2p.Identity
	if opts.Create {
		id, err = p2p.LoadOrCreateIdentity(home)
	} else {
		id, err = p2p.LoadIdentity(home)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("no identity in %s yet; run 'boardmesh keys' to create one", home)
		}
	}
	if err != nil {
		return err
	}
	info := keysInfo{PeerID: id.ID.String(), Path: id.Path, Created: id.Created, Type: id.Key.Type().String()}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	if id.Created {
		fmt.Fprintf(opts.IO.Out, "Created a new identity.\n")
	}
	fmt.Fprintf(opts.IO.Out, "peer id:  %s\nkey type: %s\nkey file: %s\n", info.PeerID, info.Type, info.Path)
	return nil
}

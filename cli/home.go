package cli

import (
	"fmt"
	"os"
	"path/filepath"
)

// HomeEnv names the environment variable that overrides where boardmesh
// keeps its identity and session logs (tests point it at a temp dir).
const HomeEnv = "BOARDMESH_HOME"

// resolveHome picks the boardmesh home: the --home flag, then
// $BOARDMESH_HOME, then the user's config directory.
func resolveHome(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if env := os.Getenv(HomeEnv); env != "" {
		return filepath.Abs(env)
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory to keep the identity in (set --home or %s): %w", HomeEnv, err)
	}
	return filepath.Join(dir, "boardmesh"), nil
}

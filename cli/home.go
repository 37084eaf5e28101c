package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/boardmesh/boardmesh/p2p"
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
	return defaultHome()
}

func defaultHome() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory to keep the identity in (set --home or %s): %w", HomeEnv, err)
	}
	return filepath.Join(dir, "boardmesh"), nil
}

// isHome reports whether dir is a boardmesh home: it holds an identity.
func isHome(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, p2p.IdentityFile))
	return err == nil && st.Mode().IsRegular()
}

// existingHome resolves the home for a command that only makes sense with
// one made before (resume reads its sessions): a path that is not a home
// is an error that names the nearest home there is, and nothing is
// created there, so a typo cannot start a second identity.
func existingHome(flag string) (string, error) {
	home, err := resolveHome(flag)
	if err != nil {
		return "", err
	}
	if isHome(home) {
		return home, nil
	}
	msg := fmt.Sprintf("no boardmesh home at %s", home)
	if alt := nearestHome(home); alt != "" {
		return "", fmt.Errorf("%s (did you mean %s?)", msg, alt)
	}
	if log := newestPlayLog(home); log != "" {
		// Only 'play' tables were played here: they keep no identity,
		// and none of them is resumed (its bots ran inside that play).
		return "", fmt.Errorf("%s: it holds only 'boardmesh play' tables, which are not resumed (their bots ran inside that play); the latest is replayed with 'boardmesh replay %s'; 'boardmesh host', 'join' or 'keys' make a home whose tables resume", msg, log)
	}
	return "", fmt.Errorf("%s (it has no %s; 'boardmesh host', 'join' or 'keys' make one)", msg, p2p.IdentityFile)
}

// newestPlayLog is the log of your seat in the newest play session under
// home, "" for none (play directories are named to sort by start time).
func newestPlayLog(home string) string {
	logs, _ := filepath.Glob(p2p.PeerLogPath(filepath.Join(home, playsDir, "*"), 0))
	if len(logs) == 0 {
		return ""
	}
	sort.Strings(logs)
	return logs[len(logs)-1]
}

// nearestHome suggests a home for a mistyped one: a sibling directory with
// a close name that is a home, else $BOARDMESH_HOME or the default home if
// they are homes.
func nearestHome(home string) string {
	parent, base := filepath.Dir(home), filepath.Base(home)
	best, bestD := "", 4 // at most 3 edits away
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			if !e.IsDir() || e.Name() == base {
				continue
			}
			if d := editDistance(strings.ToLower(base), strings.ToLower(e.Name())); d < bestD && isHome(filepath.Join(parent, e.Name())) {
				best, bestD = filepath.Join(parent, e.Name()), d
			}
		}
	}
	if best != "" {
		return best
	}
	var cands []string
	if env := os.Getenv(HomeEnv); env != "" {
		if abs, err := filepath.Abs(env); err == nil {
			cands = append(cands, abs)
		}
	}
	if def, err := defaultHome(); err == nil {
		cands = append(cands, def)
	}
	for _, c := range cands {
		if c != home && isHome(c) {
			return c
		}
	}
	return ""
}

// editDistance is the Levenshtein distance of a and b (short names).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// loadIdentity loads the identity of home; create says whether a command
// may make one on its first run (play, host, join, keys may; resume may
// not). A new one is announced on w, since it is this player's name for
// every game from now on.
func loadIdentity(home string, create bool, w interface{ Write([]byte) (int, error) }) (*p2p.Identity, error) {
	if !create {
		if !isHome(home) {
			return nil, fmt.Errorf("no boardmesh home at %s", home)
		}
		id, err := p2p.LoadIdentity(home)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no boardmesh home at %s", home)
		}
		return id, err
	}
	id, err := p2p.LoadOrCreateIdentity(home)
	if err != nil {
		return nil, err
	}
	if id.Created && w != nil {
		fmt.Fprintf(w, "Made a new boardmesh home at %s (identity %s).\n", home, id.ID)
	}
	return id, nil
}

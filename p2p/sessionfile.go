package p2p

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/boardmesh/boardmesh/p2p/fileio"
)

// maxSessionFile bounds a session.json: the members' names and addresses
// of one table take a few kilobytes.
const maxSessionFile = 1 << 20

// readSessionMeta reads one session.json under the home, bounded; a file
// that is not a regular file (a FIFO would block) is refused.
func readSessionMeta(path string) (SessionMeta, error) {
	var m SessionMeta
	st, err := os.Stat(path)
	if err != nil {
		return m, err
	}
	if !st.Mode().IsRegular() {
		return m, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := fileio.ReadFile(context.Background(), path, maxSessionFile)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

package e2e

import (
	"strings"
	"testing"
)

// saw reports whether a JSON line's text contains s.
func (p *proc) saw(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if text, _ := l["text"].(string); strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// dumpOnFailure logs what every process printed if the test fails, so a
// peer that stalled shows why (the failing wait names only one).
func dumpOnFailure(t *testing.T, procs ...*proc) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, p := range procs {
			p.mu.Lock()
			t.Logf("%s printed:\n  %s\n  stderr: %s", p.name, strings.Join(p.raw, "\n  "), p.stderr.String())
			p.mu.Unlock()
		}
	})
}

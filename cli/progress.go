package cli

import (
	"fmt"
	"strings"
)

// progress draws a one-line progress bar on the error stream when it is a
// terminal; elsewhere (pipes, CI, tests) it prints nothing, so outputs stay
// byte-identical from run to run.
type progress struct {
	io      *IOStreams
	total   int
	enabled bool
	last    int
}

func newProgress(io *IOStreams, total int, want bool) *progress {
	return &progress{io: io, total: total, enabled: want && io.ErrTTY}
}

func (p *progress) step(n int) {
	if !p.enabled {
		return
	}
	const width = 30
	filled := n * width / p.total
	pct := n * 100 / p.total
	if pct == p.last && n != p.total {
		return
	}
	p.last = pct
	fmt.Fprintf(p.io.ErrOut, "\r[%s%s] %3d%%  %d/%d", strings.Repeat("#", filled), strings.Repeat(".", width-filled), pct, n, p.total)
}

func (p *progress) done() {
	if p.enabled {
		fmt.Fprint(p.io.ErrOut, "\r\033[K")
	}
}

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var binary string

// TestMain builds boardmesh once for every test of the package.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "boardmesh-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "boardmesh")
	build := exec.Command("go", "build", "-o", binary, "github.com/boardmesh/boardmesh")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go build:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is one running boardmesh process whose JSON lines the test reads.
type proc struct {
	name   string
	cmd    *exec.Cmd
	mu     sync.Mutex
	lines  []map[string]any
	raw    []string
	done   chan struct{}
	err    error
	stderr strings.Builder
}

func start(t *testing.T, ctx context.Context, name string, args ...string) *proc {
	t.Helper()
	return startProg(t, ctx, name, binary, args...)
}

// startProg starts prog (boardmesh, or a wrapper such as ip netns exec).
func startProg(t *testing.T, ctx context.Context, name, prog string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, done: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, prog, args...)
	p.cmd.Stdin = strings.NewReader("")
	p.cmd.Stderr = &lockedWriter{w: &p.stderr, mu: &p.mu}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			json.Unmarshal(sc.Bytes(), &m)
			p.mu.Lock()
			p.lines = append(p.lines, m)
			p.raw = append(p.raw, sc.Text())
			p.mu.Unlock()
		}
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// waitEvent waits for a JSON line with the given event and returns it.
func (p *proc) waitEvent(t *testing.T, event string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		for _, l := range p.lines {
			if l != nil && l["event"] == event {
				p.mu.Unlock()
				return l
			}
		}
		p.mu.Unlock()
		select {
		case <-p.done:
			p.mu.Lock()
			for _, l := range p.lines {
				if l != nil && l["event"] == event {
					p.mu.Unlock()
					return l
				}
			}
			p.mu.Unlock()
			t.Fatalf("%s exited (%v) before %q; stdout %q; stderr %s", p.name, p.err, event, p.raw, p.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("%s: no %q within %s; stdout %q; stderr %s", p.name, event, timeout, p.raw, p.stderr.String())
	return nil
}

// lineCount is how many JSON lines the process has printed so far.
func (p *proc) lineCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.lines)
}

// waitEventSince waits for a JSON line after the first from lines that
// satisfies ok, and returns it.
func (p *proc) waitEventSince(t *testing.T, from int, timeout time.Duration, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p.mu.Lock()
		for _, l := range p.lines[min(from, len(p.lines)):] {
			if l != nil && ok(l) {
				p.mu.Unlock()
				return l
			}
		}
		p.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("%s: no such line within %s of the flood's end; stdout since %q; stderr %s", p.name, timeout, p.rawSince(from), p.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *proc) rawSince(from int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.raw[min(from, len(p.raw)):]...)
}

// wait waits for the process to exit and returns its error.
func (p *proc) wait(t *testing.T, timeout time.Duration) error {
	t.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		t.Fatalf("%s did not exit within %s; stderr %s", p.name, timeout, p.stderr.String())
	}
	return nil
}

// run runs boardmesh to completion and returns stdout, stderr and the exit code.
func run(t *testing.T, timeout time.Duration, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("boardmesh %s hung (killed after %s); stderr %s", strings.Join(args, " "), timeout, errOut.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

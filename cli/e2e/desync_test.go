package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestInjectedDesyncAcrossProcesses: three processes on loopback, one
// started with --inject-desync. The honest peers stop with exit code 3,
// their summary carries the report (first divergent entry, differing
// fields) and names the log file as the bundle, and `boardmesh replay`
// of that file alone names the same entry and field.
func TestInjectedDesyncAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tmp := t.TempDir()
	common := []string{"--loopback", "--json", "--bot-delay", "20ms"}
	host := start(t, ctx, "host", append([]string{"host", "dragonslair", "--home", filepath.Join(tmp, "a"), "--name", "ada", "--bot", "cautious", "--start-when", "3"}, common...)...)
	addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
	start(t, ctx, "bob", append([]string{"join", addr, "--home", filepath.Join(tmp, "b"), "--name", "bob", "--bot", "random"}, common...)...)
	start(t, ctx, "cy", append([]string{"join", addr, "--home", filepath.Join(tmp, "c"), "--name", "cy", "--bot", "bold", "--inject-desync", "6"}, common...)...)
	sum := host.waitEvent(t, "summary", 60*time.Second)
	err := host.wait(t, 20*time.Second)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("host exited with %v, want exit code 3; stderr %s", err, host.stderr.String())
	}
	report, _ := sum["desync"].(string)
	bundle, _ := sum["log"].(string)
	m := regexp.MustCompile(`first divergent entry is step (\d+) `).FindStringSubmatch(report)
	field := regexp.MustCompile(`(?m)^  (\S+): mine `).FindStringSubmatch(report)
	if m == nil || field == nil || bundle == "" {
		t.Fatalf("summary lacks the entry, a field or the bundle: %v", sum)
	}
	out, errOut, code := run(t, 30*time.Second, "replay", bundle)
	if code != 3 || !strings.Contains(out, "first divergent entry is step "+m[1]+" ") || !strings.Contains(out, "  "+field[1]+": ") {
		t.Fatalf("replay %s: exit %d, want 3 naming step %s and field %s:\n%s%s", bundle, code, m[1], field[1], out, errOut)
	}
}

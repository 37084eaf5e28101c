//go:build linux

package cli

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestReadOnlyMappingOf(t *testing.T) {
	exe := "/usr/local/bin/boardmesh"
	for _, c := range []struct {
		line       string
		start, end uintptr
		ok         bool
	}{
		{"00400000-0102a000 r-xp 00000000 fe:00 10486251 /usr/local/bin/boardmesh", 0x400000, 0x102a000, true},
		{"0102a000-01fa0000 r--p 00c2a000 fe:00 10486251 /usr/local/bin/boardmesh", 0x102a000, 0x1fa0000, true},
		// Written data must stay: the collector's and every package's variables.
		{"01fa0000-020d3000 rw-p 01ba0000 fe:00 10486251 /usr/local/bin/boardmesh", 0, 0, false},
		// Another file, the heap, a shared mapping, a replaced binary.
		{"7f28e5085000-7f28e51db000 r-xp 00026000 fe:00 326269 /usr/lib/x86_64-linux-gnu/libc.so.6", 0, 0, false},
		{"3fe929000000-3fe929800000 rw-p 00000000 00:00 0", 0, 0, false},
		{"00400000-0102a000 r--s 00000000 fe:00 10486251 /usr/local/bin/boardmesh", 0, 0, false},
		{"00400000-0102a000 r-xp 00000000 fe:00 10486251 /usr/local/bin/boardmesh (deleted)", 0, 0, false},
		// Garbage.
		{"0102a000-00400000 r-xp 00000000 fe:00 10486251 /usr/local/bin/boardmesh", 0, 0, false},
		{"zz-0102a000 r-xp 00000000 fe:00 10486251 /usr/local/bin/boardmesh", 0, 0, false},
		{"", 0, 0, false},
	} {
		start, end, ok := readOnlyMappingOf(c.line, exe)
		if start != c.start || end != c.end || ok != c.ok {
			t.Errorf("readOnlyMappingOf(%q) = %#x, %#x, %v; want %#x, %#x, %v", c.line, start, end, ok, c.start, c.end, c.ok)
		}
	}
}

// TestDropExecutablePages checks that the pages go and that the process
// runs on: the test binary's own mapped file pages fall, and the code
// after the drop (strconv, the testing package) still works.
func TestDropExecutablePages(t *testing.T) {
	if traced() {
		t.Skip("under a debugger the pages are kept on purpose")
	}
	before := rssFileKB(t)
	dropExecutablePages()
	after := rssFileKB(t)
	t.Logf("RssFile %d kB before, %d kB after", before, after)
	if after >= before {
		t.Errorf("RssFile %d kB after the drop, %d kB before: nothing was released", after, before)
	}
	if got := strconv.Itoa(40 << 20); got != "41943040" {
		t.Errorf("strconv after the drop: %s", got)
	}
}

func rssFileKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// dropExecutablePages is releaseSetupPages on Linux: madvise(MADV_DONTNEED)
// on each read-only private mapping of /proc/self/exe listed in
// /proc/self/maps. Any failure leaves the pages where they are.
func dropExecutablePages() {
	if traced() {
		return
	}
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	// The map of this process is a few hundred lines; 1 MiB is far more.
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		start, end, ok := readOnlyMappingOf(sc.Text(), exe)
		if ok {
			syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED)
		}
	}
}

// readOnlyMappingOf parses one line of /proc/self/maps ("start-end perms
// offset dev inode path") and says whether it maps the file exe privately
// and without write permission, and where.
func readOnlyMappingOf(line, exe string) (start, end uintptr, ok bool) {
	fs := strings.Fields(line)
	if len(fs) != 6 || fs[5] != exe || len(fs[1]) != 4 || fs[1][1] == 'w' || fs[1][3] != 'p' {
		return 0, 0, false
	}
	from, to, found := strings.Cut(fs[0], "-")
	if !found {
		return 0, 0, false
	}
	a, err1 := strconv.ParseUint(from, 16, 64)
	b, err2 := strconv.ParseUint(to, 16, 64)
	if err1 != nil || err2 != nil || b <= a {
		return 0, 0, false
	}
	return uintptr(a), uintptr(b), true
}

// traced says whether a debugger is attached (TracerPid in
// /proc/self/status is not 0): its breakpoints live in private copies of
// code pages, which MADV_DONTNEED would throw away.
func traced() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("TracerPid:")); ok {
			return strings.TrimSpace(string(v)) != "0"
		}
	}
	return true
}

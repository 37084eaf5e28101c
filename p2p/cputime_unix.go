//go:build unix

package p2p

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used so
// far; ok is false where the platform does not say.
func processCPU() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

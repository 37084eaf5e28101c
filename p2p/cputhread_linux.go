package p2p

import (
	"syscall"
	"unsafe"
)

// threadCPU is the CPU time this OS thread has used, in nanoseconds
// (clock_gettime with CLOCK_THREAD_CPUTIME_ID, 3 on Linux), or -1. On a
// machine shared with other jobs it is a steadier figure than wall time
// (bench secret's setup schedule).
func threadCPU() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return -1
	}
	return ts.Nano()
}

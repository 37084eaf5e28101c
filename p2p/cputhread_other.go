//go:build !linux

package p2p

// threadCPU is -1 where this OS thread's CPU time is not read: the setup
// schedule then times by the wall clock.
func threadCPU() int64 { return -1 }

//go:build !linux

package mentalpoker

func threadCPU() int64 { return -1 }

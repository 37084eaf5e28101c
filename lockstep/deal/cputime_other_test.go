//go:build !linux

package deal

func threadCPU() int64 { return -1 }

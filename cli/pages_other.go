//go:build !linux

package cli

func dropExecutablePages() {}

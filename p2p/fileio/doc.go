// Package fileio is the one way boardmesh reads a file it did not just
// write: logs, desync bundles, option and rules files, identity keys and
// session files. Every read is bounded (a device such as /dev/urandom
// or a FIFO has no size to check beforehand, so the bound is on the bytes
// read, not on stat) and can be cancelled with a context, so Ctrl-C stops
// a read from a pipe that never ends or never starts.
package fileio

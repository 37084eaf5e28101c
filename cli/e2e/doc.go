// Package e2e holds the end-to-end tests of the boardmesh binary: it is
// built with `go build` into a temporary directory, and separate processes
// play real games over loopback, one of them killed with SIGKILL and
// resumed; and a terminal test drives `boardmesh play` in tmux. They live
// apart from package cli so that its quick tests do not wait on them.
package e2e

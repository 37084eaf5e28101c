// Package e2e holds the end-to-end tests of the boardmesh binary: it is
// built with `go build` into a temporary directory, and separate processes
// play real games over loopback, one of them killed with SIGKILL and
// resumed; and a terminal test drives `boardmesh play` in tmux. They live
// apart from package cli so that its quick tests do not wait on them.
//
// Every test calls t.Parallel: most of a test's time is spent waiting on
// its processes (bot delays, stall and drop timers, a flood's duration), so
// `go test` runs -parallel of them at once (GOMAXPROCS by default). Each
// test keeps to its own resources for that: its own temporary homes, ports
// chosen by the system, its own tmux socket, network namespaces under a
// prefix and subnet of its own, its own browser.
package e2e

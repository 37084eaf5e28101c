//go:build race

package p2p_test

// raceDetector is true in a test binary built with -race, whose every
// memory access is checked: 5–10 times the CPU, more for the proofs of a
// secret table.
const raceDetector = true

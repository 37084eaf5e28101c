//go:build !race

package p2p_test

// raceDetector is true in a test binary built with -race (race_on_test.go).
const raceDetector = false

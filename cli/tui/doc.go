// Package tui is boardmesh's terminal UI, built on Bubble Tea. It only
// renders and collects key presses: the runner sends it Snapshots of the
// game as the local seat may see it, and it hands the chosen action back
// through a callback. Nothing in here knows about the network.
package tui

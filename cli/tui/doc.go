// Package tui is boardmesh's terminal UI, built on Bubble Tea. It only
// renders and collects key presses: the runner sends it Snapshots of the
// game as the local seat may see it, and it hands the chosen action back
// through a callback. Nothing in here knows about the network.
//
// The screen always fits the terminal (view.go): the title and status on
// top; the menu of moves, the sync line and the keys at the bottom; the
// board between them, scrolled with PgUp/PgDn or the wheel when taller;
// "What happened" and the peers take what is left. Long menus (menu.go)
// are grouped by the moves' leading words and filtered with /.
package tui

// Package cli holds the boardmesh commands (cobra) and wires them to the
// packages that do the work. Commands stay thin: each has an options struct
// (dependencies first, then flag values), a constructor newCmdX(f, runF)
// whose RunE only fills the options, and an xRun(opts) function that does
// the work and writes to the injected streams, never to os.Stdout, so every
// command can be tested with buffers. Errors map to exit codes in one place
// (Execute).
package cli

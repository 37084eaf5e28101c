package cli

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes of boardmesh, decided in one place (exitCode).
const (
	ExitOK        = 0
	ExitError     = 1   // the command failed; the message says why
	ExitUsage     = 2   // wrong flags or arguments
	ExitDesync    = 3   // the peers' states diverged (a desync report was written)
	ExitCheating  = 4   // a peer was caught cheating (equivocation, forged log)
	ExitCancelled = 130 // Ctrl-C
)

// UsageError is a wrong flag, argument or option value.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usageErrorf builds a UsageError.
func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ExitCodeError carries a specific exit code for errors that are neither
// usage errors nor plain failures (desync, cheating).
type ExitCodeError struct {
	Code int
	Err  error
}

func (e *ExitCodeError) Error() string { return e.Err.Error() }
func (e *ExitCodeError) Unwrap() error { return e.Err }

func exitCode(err error) int {
	var u *UsageError
	var c *ExitCodeError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled):
		return ExitCancelled
	case errors.As(err, &c):
		return c.Code
	case errors.As(err, &u):
		return ExitUsage
	}
	return ExitError
}

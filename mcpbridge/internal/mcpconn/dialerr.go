package mcpconn

import "errors"

// StderrError carries the stderr tail of a stdio server whose connection
// failed beside the error, not in its message: a server's stderr may echo
// its environment, so it belongs in the status and the logs, never in an
// error that may reach a model.
type StderrError struct {
	Err error
	// Stderr is the last lines of the server's stderr (at most 10 lines
	// and 2,000 bytes).
	Stderr string
}

// Error returns Err's message, without the stderr tail.
func (e *StderrError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *StderrError) Unwrap() error { return e.Err }

// StderrOf returns the stderr tail carried by err, or "".
func StderrOf(err error) string {
	var se *StderrError
	if errors.As(err, &se) {
		return se.Stderr
	}
	return ""
}

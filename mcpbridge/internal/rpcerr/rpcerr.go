// Package rpcerr is the error a client answers a server's request with:
// the JSON-RPC code and message the server reads, and the cause, which
// stays with the host (its log, errors.Is). The message is chosen for the
// server; the cause's text never reaches it through this error.
//
//	return nil, &rpcerr.Error{Code: rpcerr.Internal, Message: "the client could not review the request", Err: err}
package rpcerr

// JSON-RPC error codes a client answers with.
const (
	// Rejected is the protocol's code for a request the user refused.
	Rejected = -1
	// Limited answers a request past a limit of the client (a rate, a
	// size, recursion).
	Limited        = -32000
	MethodNotFound = -32601
	InvalidParams  = -32602
	Internal       = -32603
)

// Error is an error the server is to read as a JSON-RPC error: Code and
// Message, never Err's text.
type Error struct {
	Code    int
	Message string
	Err     error // the cause, if any
}

// Error returns Message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// RPCCode returns Code.
func (e *Error) RPCCode() int { return e.Code }

// Coder is an error that carries the JSON-RPC error code a server is to
// read (an *Error, among others).
type Coder interface {
	error
	RPCCode() int
}

package mcpbridge

import (
	"errors"
	"strconv"

	"github.com/mcpgenai/bridge/confirm"
)

// Every sentinel error of the package is declared here. Each message is a
// short lowercase phrase saying what went wrong, without a package prefix
// or punctuation; the error that wraps a sentinel adds which server, tool
// or call it concerns. Test for them with errors.Is: the texts may reach
// the model and a person, and are not a contract.

// The errors of a failed function call. A [CallResult]'s Err wraps exactly
// one of them, or context.Canceled / context.DeadlineExceeded when the
// caller's context ended, so callers can tell the kinds apart with
// errors.Is; the model reads Err's text (see [CallResult.FunctionResponse]).
var (
	// ErrUnknownTool: the model called a function no tool is registered
	// under (or sent no call at all).
	ErrUnknownTool = errors.New("unknown function")
	// ErrDenied: the call was not allowed to run: the deny-list, the
	// person's answer, or nobody to ask (see [DeniedError]).
	ErrDenied = errors.New("call not allowed")
	// ErrInvalidArguments: the arguments do not satisfy the tool's
	// original input schema; the error's text says where and how. The error of
	// [Bridge.GetPrompt] wraps it too when the arguments lack a required
	// one or name one the prompt does not take.
	ErrInvalidArguments = errors.New("invalid arguments")
	// ErrTimeout: the server did not answer within its timeout
	// ([Tool.Timeout]), or a call that may run longer (a task, a call
	// reporting progress) did not end within
	// [ServerConfig.MaxCallTime]. The caller's own deadline is reported as
	// context.DeadlineExceeded instead.
	ErrTimeout = errors.New("timed out")
	// ErrToolError: the server ran the tool and it reported an error
	// (isError in the result), or the tool's task failed or was
	// cancelled by the server. The model reads the server's text.
	ErrToolError = errors.New("tool reported an error")
	// ErrTransport: the bridge could not make or finish the call: the
	// server is not connected and could not be reconnected, it died during
	// the call, it answered with something that is not a tool result, it
	// lost the call's task or kept it past its time to live, or the
	// Bridge was closed. A call that fails so is never sent again.
	ErrTransport = errors.New("call failed")
	// ErrTooManyQuestions: during the call the server asked the host
	// more questions (forms, pages to visit, sampling requests, requests
	// for the roots) than [QuestionLimits] allow; the call was ended and
	// the server told. The error says which kind and which bound.
	ErrTooManyQuestions = errors.New("too many questions from the server")
)

// The errors of configuring, connecting and the Bridge's other methods.
var (
	// ErrClosed is returned by a [Bridge]'s methods after Close.
	ErrClosed = errors.New("bridge closed")
	// ErrInvalidConfig is wrapped by every error that reports an invalid
	// configuration, whether it came from a settings file (bad JSON
	// included) or from Go (see [ConfigError]).
	ErrInvalidConfig = errors.New("invalid server configuration")
	// ErrUnknownServer is wrapped by errors naming a server that is not
	// configured.
	ErrUnknownServer = errors.New("unknown server")
	// ErrNotConnected is wrapped by the error of a call to a server that is
	// disconnected and may not be reconnected yet: its last reconnect
	// attempt was less than [Options.ReconnectInterval] ago. The error also
	// wraps the server's last error.
	ErrNotConnected = errors.New("server not connected")
	// ErrTooManyTools is wrapped by the error of [Bridge.Declare] when the
	// host's own declarations are more than one request may carry.
	ErrTooManyTools = errors.New("too many tools for one request")
	// ErrNotDiscovered is wrapped by the error of [Bridge.Declare], and
	// by a call's error, when the Bridge has
	// servers configured but [Bridge.Discover] was never called: the model
	// would get none of their tools. A Bridge without servers needs no
	// discovery.
	ErrNotDiscovered = errors.New("servers not discovered yet")
	// ErrUnknownPrompt is wrapped by the error of [Bridge.GetPrompt] for a
	// prompt the server does not list.
	ErrUnknownPrompt = errors.New("unknown prompt")
)

// The package's own sentinels, worded alike: no caller needs to tell them
// apart from other errors of the same call, so they are not exported.
var (
	// errOutputSchema is wrapped by [CallResult.OutputErr], whose being
	// non-nil already says that the structured content does not match.
	errOutputSchema = errors.New("structured content does not match the output schema")
	// errNoTools is the error of a server that connected but offers no
	// tools after its includeTools and excludeTools filters, and no prompts
	// or resources either; the status shows it.
	errNoTools = errors.New("server offers no tools after its tool filters")
	// errNoLogin is wrapped by the error of [Bridge.Login] for a server
	// that does not use OAuth; [ServerStatus.Auth] tells a host beforehand.
	errNoLogin = errors.New("server does not use an oauth login")
)

// DeniedError is the error of a call that was not allowed to run. It
// matches [ErrDenied] with errors.Is and wraps the policy's error, if any
// (such as [confirm.ErrNoConfirmer]).
type DeniedError struct {
	// Name is the function the model called.
	Name string
	// Reason is the policy's reason: [confirm.Denied] (deny-list),
	// [confirm.Declined] (the person answered Cancel) or
	// [confirm.Unanswered] (no confirmer, or it failed).
	Reason confirm.Reason
	// Err is the policy's error for Unanswered; nil otherwise.
	Err error
}

// Error returns, for example, `function "rm" was not run: cancelled by the
// user`.
func (e *DeniedError) Error() string {
	msg := "function " + quote(e.Name) + " was not run: " + e.Reason.String()
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is reports whether target is [ErrDenied].
func (e *DeniedError) Is(target error) bool { return target == ErrDenied }

// Unwrap returns Err.
func (e *DeniedError) Unwrap() error { return e.Err }

// invalidArgumentsError is the error of a call whose arguments do not
// satisfy the tool's original input schema. It matches
// [ErrInvalidArguments] with errors.Is; its text carries everything a
// caller or the model needs.
type invalidArgumentsError struct {
	// name is the function the model called.
	name string
	// detail is the validator's compact message, one clause per failed
	// keyword: "at '/size': value must be one of 1, 2, 3; at '': missing
	// property 'name'".
	detail string
}

// Error returns `invalid arguments for function "x": ` followed by detail.
func (e *invalidArgumentsError) Error() string {
	return "invalid arguments for function " + quote(e.name) + ": " + e.detail
}

// Is reports whether target is [ErrInvalidArguments].
func (e *invalidArgumentsError) Is(target error) bool { return target == ErrInvalidArguments }

// toolError keeps the message convertResult built for an isError result and
// makes it match ErrToolError.
type toolError struct{ err error }

func (e *toolError) Error() string        { return e.err.Error() }
func (e *toolError) Is(target error) bool { return target == ErrToolError }
func (e *toolError) Unwrap() error        { return e.err }

// quote returns s in double quotes with Go escapes, as %q does.
func quote(s string) string { return strconv.Quote(s) }

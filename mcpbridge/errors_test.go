package mcpbridge

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/confirm"
)

func TestCallErrors(t *testing.T) {
	noConfirmer := fmt.Errorf("confirming x: %w", confirm.ErrNoConfirmer)
	tests := []struct {
		name    string
		err     error
		want    string
		is      []error
		isNot   []error
		wrapped error // errors.Unwrap result; nil = none
	}{
		{"declined", &DeniedError{Name: "rm", Reason: confirm.Declined},
			`function "rm" was not run: cancelled by the user`, []error{ErrDenied}, []error{ErrInvalidArguments, confirm.ErrNoConfirmer}, nil},
		{"deny-list", &DeniedError{Name: "rm", Reason: confirm.Denied},
			`function "rm" was not run: denied by policy`, []error{ErrDenied}, nil, nil},
		{"no confirmer", &DeniedError{Name: "a\"b", Reason: confirm.Unanswered, Err: noConfirmer},
			`function "a\"b" was not run: not confirmed: confirming x: a person must approve it and nobody can be asked here (trust the server or allow-list the tool to run it without asking)`,
			[]error{ErrDenied, confirm.ErrNoConfirmer}, nil, noConfirmer},
		{"invalid arguments", &invalidArgumentsError{name: "pick", detail: "at '/n': got string, want integer"},
			`invalid arguments for function "pick": at '/n': got string, want integer`, []error{ErrInvalidArguments}, []error{ErrDenied}, nil},
		{"tool error", &toolError{err: errors.New(`mcp tool "x" reported an error: boom`)},
			`mcp tool "x" reported an error: boom`, []error{ErrToolError}, []error{ErrTransport}, nil},
		{"wrapped", fmt.Errorf("turn 2: %w", &invalidArgumentsError{name: "f", detail: "d"}),
			`turn 2: invalid arguments for function "f": d`, []error{ErrInvalidArguments}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			for _, target := range tc.is {
				if !errors.Is(tc.err, target) {
					t.Errorf("errors.Is(%v, %v) = false, want true", tc.err, target)
				}
			}
			for _, target := range tc.isNot {
				if errors.Is(tc.err, target) {
					t.Errorf("errors.Is(%v, %v) = true, want false", tc.err, target)
				}
			}
			if de, ok := tc.err.(*DeniedError); ok && de.Unwrap() != tc.wrapped {
				t.Errorf("Unwrap() = %v, want %v", de.Unwrap(), tc.wrapped)
			}
		})
	}
}

// TestSentinelWording holds every sentinel error to the one style errors.go
// states: a short lowercase phrase without a package prefix or punctuation.
func TestSentinelWording(t *testing.T) {
	sentinels := map[string]error{
		"ErrUnknownTool": ErrUnknownTool, "ErrDenied": ErrDenied, "ErrInvalidArguments": ErrInvalidArguments,
		"ErrTimeout": ErrTimeout, "ErrToolError": ErrToolError, "ErrTransport": ErrTransport,
		"errOutputSchema": errOutputSchema, "ErrClosed": ErrClosed, "ErrInvalidConfig": ErrInvalidConfig,
		"ErrUnknownServer": ErrUnknownServer, "ErrNotConnected": ErrNotConnected, "errNoTools": errNoTools,
		"errNoLogin": errNoLogin, "ErrTooManyTools": ErrTooManyTools, "ErrUnknownPrompt": ErrUnknownPrompt,
	}
	for name, err := range sentinels {
		msg := err.Error()
		if msg == "" || msg != strings.ToLower(msg) || strings.ContainsAny(msg, ".:;,()\"") || len(strings.Fields(msg)) > 8 {
			t.Errorf("%s = %q, want a short lowercase phrase without punctuation", name, msg)
		}
	}
}

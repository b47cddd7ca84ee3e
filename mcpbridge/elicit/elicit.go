// Package elicit holds what a host sees of a server's questions to the
// user during a tool call (MCP elicitation): the [Request], a form to fill
// in or a page to visit, and the host's [Response]. A host answers them in
// the function it gives as mcpbridge.ClientFeatures.Elicit:
//
//	features := &mcpbridge.ClientFeatures{
//		Elicit: func(ctx context.Context, q elicit.Request) (elicit.Response, error) {
//			if q.URL != "" {
//				fmt.Println("Please visit", q.URL)
//				return elicit.Response{Action: elicit.Accept}, nil
//			}
//			fmt.Println(q.Message) // then ask for each field of q.Schema
//			return elicit.Response{Action: elicit.Decline}, nil
//		},
//	}
//
// What reaches the host is checked and cleaned by the Bridge first: a URL
// only when it is safe to show, a form only in the specification's
// restricted shape and within bounds, every text without terminal escape
// sequences or control characters. The package has no network code and
// imports nothing of the Bridge.
package elicit

import "encoding/json"

// Request is a server's request for input from the user while one of
// its tools runs. It comes in two forms: a form to fill in, described by
// Schema, or, when URL is set, a page for the user to visit (to log in or
// consent, for example) with nothing typed back.
type Request struct {
	// Server is the configured name of the asking server.
	Server string
	// ServerTool is the server's own name of the tool being called, when known:
	// a server older than protocol 2026-07-28 asks outside the call, and
	// then ServerTool is "".
	ServerTool string
	// Message says what is asked and why, in the server's words, cleaned
	// for a person (no escape sequences, no control characters but
	// newline and tab, no bidirectional formatting characters); at most 8
	// KiB.
	Message string
	// Schema is the JSON Schema of the form, in the specification's
	// restricted shape: an object whose properties are strings (with
	// minLength, maxLength and the formats email, uri, date, date-time),
	// numbers, integers (with minimum, maximum), booleans, single choices
	// (enum, with enumNames, or oneOf of const and title) and multiple
	// choices (an array whose items hold enum or anyOf), each with a
	// title, a description and a default that fits it, and required. Its
	// titles, descriptions and string defaults are cleaned like Message;
	// keywords outside that shape are left out. A form in another shape,
	// with more than 32 fields or 100 choices in a field, a title over
	// 256 bytes, a description over 2 KiB, or 64 KiB of JSON in all is
	// refused to the server and never reaches the host. Nil when URL is
	// set.
	Schema json.RawMessage
	// URL, when not empty, is the page the server asks the user to visit,
	// and ID the server's id for this request; both are "" for a form.
	// Only an https URL, or http to a loopback address, with an ASCII
	// host and nothing before it, reaches the host (see the package documentation);
	// ID is cleaned like Message.
	URL string
	ID  string
	// Completed, for a URL with an ID, is closed when the server says the
	// interaction at the page is complete
	// (notifications/elicitation/complete): a host waiting for the user to
	// come back may stop waiting then. It stays open when the server
	// never says so; nil for a form.
	Completed <-chan struct{}
}

// Action is the user's choice.
type Action int

const (
	// Decline: the user said no. The zero value.
	Decline Action = iota
	// Accept: the user answered (form) or agreed to visit (URL).
	Accept
	// Cancel: the user dismissed the question without choosing.
	Cancel
)

// Response is the answer to a [Request]. An Action other than
// the three defined ones counts as [Cancel]. For a URL, Accept
// means the user has been to the page (or agreed to go): the Bridge goes
// on, and when the server had refused the tool call until the visit
// (URLElicitationRequired), it calls the tool once more.
type Response struct {
	// Action is the user's choice: Accept, Decline or Cancel.
	Action Action
	// Content is the form's values when Action is Accept; it is
	// ignored for a URL and for the other actions. A field of the form
	// left out of it takes the default the form's schema gives it, if
	// any. The Bridge does not modify it.
	Content map[string]any
}

// String returns "declined", "accepted" or "cancelled".
func (a Action) String() string {
	switch a {
	case Accept:
		return "accepted"
	case Decline:
		return "declined"
	}
	return "cancelled"
}

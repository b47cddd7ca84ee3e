// Package store says what the replicas of a service built on mcpbridge
// share, so that state outlives one process: the OAuth tokens and
// registered clients of each user ([auth.Store], refreshed under
// [auth.Locker]), the MCP tasks running for the model's function calls
// ([Tasks], so that another replica can wait for a task whose process
// died), and the protocol and tool-list caches ([Cache], so that a new
// replica skips the protocol detection and, where a server allows it,
// the tools/list). A [Store] is all of them; give one to
// mcpbridge.Options.Store.
//
// [Memory] keeps them in one process (tests, a single replica). Package
// [github.com/mcpgenai/bridge/mcpbridge/store/postgres] keeps them in
// PostgreSQL, tokens encrypted, for replicas; a host that does not import
// it does not build its client library.
//
// Every key carries a user: the host's identifier of the person the state
// is for, "" for the one user of a Bridge that serves one. Nothing stored
// for one user is ever loaded for another.
package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// Store is everything the replicas of a service share. Implementations
// must be safe for concurrent use, by any number of goroutines and
// processes. Package storetest checks an implementation against the
// contracts stated here.
type Store interface {
	auth.Store
	auth.Locker
	Tasks
	Cache
}

// TaskKey names the MCP task that one function call of the model became.
type TaskKey struct {
	// User is as in [auth.Key].
	User string
	// Server is the MCP server's name in the Bridge's configuration.
	Server string
	// Call is the id of the model's function call (genai.FunctionCall.ID),
	// never "": a call without an id is not recorded.
	Call string
}

// Task is a running MCP task, as recorded when its tools/call was
// answered with a task handle.
type Task struct {
	// Tool is the tool's name on its server.
	Tool string `json:"tool"`
	// Args is the hex SHA-256 of the call's arguments as sent: a call
	// with the same id but other arguments is another call.
	Args string `json:"args"`
	// ID is the task id the server gave. It is a credential of sorts
	// (whoever knows it may read the result where the server does not
	// bind tasks to their requester): stores that encrypt tokens
	// encrypt it too.
	ID string `json:"id"`
	// Protocol is the protocol revision the task was created in:
	// "2025-11-25" (tasks/get and tasks/result) or "2026-07-28" and later
	// (the tasks extension).
	Protocol string `json:"protocol"`
	// Session is the Mcp-Session-Id of the streamable-HTTP session the
	// task was created in, "" when there was none; a server of 2025-11-25
	// may answer for the task only within it. A credential like ID.
	Session string `json:"session,omitempty"`
	// Created is when the task handle was received.
	Created time.Time `json:"created"`
	// Expires is when the server may discard the task (its ttl), zero
	// when it set none. A store may drop a record once it has expired.
	Expires time.Time `json:"expires,omitzero"`
}

// Tasks records the MCP tasks running for function calls. A Bridge puts a
// record when a call's tools/call is answered with a task, and deletes it
// when it stops waiting for the task: the task ended, or the Bridge
// cancelled it. A record that remains belongs to a process that died (or
// lost its connection) while the task ran; a Bridge given the same call
// again waits for that task instead of calling the tool again.
//
// LoadTask returns (nil, nil) when no record is kept for key (or it has
// expired); DeleteTask of a missing key is not an error. PutTask replaces
// the record of key. A Task given to PutTask or returned by LoadTask
// belongs to the caller from then on.
type Tasks interface {
	PutTask(ctx context.Context, key TaskKey, t *Task) error
	LoadTask(ctx context.Context, key TaskKey) (*Task, error)
	DeleteTask(ctx context.Context, key TaskKey) error
}

// Protocol is how a server was last reached: its protocol revision and
// transport ("http", "sse" or "stdio").
type Protocol struct {
	// Version is the protocol revision ("2026-07-28", "2025-11-25", ...).
	Version string `json:"protocol"`
	// Transport is "http", "sse" or "stdio".
	Transport string `json:"transport"`
}

// ToolsKey names a kept tools list: the server's, as one user sees it. A
// list the server marked public (the same for everyone) is kept with
// User "".
type ToolsKey struct {
	// Server is an opaque key of the server (a hash of how it is
	// reached): no URL, command or header appears in it.
	Server string
	// User is as in [auth.Key]; "" for a public list.
	User string
}

// ToolList is a server's tools list, kept while it is fresh.
type ToolList struct {
	// Tools holds each tool's JSON object as the server sent it.
	Tools []json.RawMessage `json:"list"`
	// Until is when the list goes stale (the server's ttl).
	Until time.Time `json:"until"`
}

// Cache keeps what spares a new process work: the protocol each server
// was reached with, and the tools lists servers say stay fresh for a
// while (protocol 2026-07-28's ttl). Its content is a hint: a stale or
// lost entry costs a detection or a tools/list, nothing else.
//
// Server keys are opaque (a hash of how a server is reached). LoadProtocol
// returns the zero Protocol when none is kept; SaveProtocol of the zero
// Protocol forgets the server's entry and its tools lists. LoadTools
// returns nil when no list is kept for key or it is stale; SaveTools of a
// nil list, or of one already stale, forgets key's list. Lists and their
// Tools given or returned belong to the caller from then on.
type Cache interface {
	LoadProtocol(ctx context.Context, server string) (Protocol, error)
	SaveProtocol(ctx context.Context, server string, p Protocol) error
	LoadTools(ctx context.Context, key ToolsKey) (*ToolList, error)
	SaveTools(ctx context.Context, key ToolsKey, l *ToolList) error
}

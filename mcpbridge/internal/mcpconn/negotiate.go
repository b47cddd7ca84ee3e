package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// A 2026-07-28 server that does not take the version a server/discover
// offers answers -32022 with the versions it supports, and the client asks
// again with one of them. mcp-go v1.2.1 asks again only when the version it
// would pick differs from the one it offered; a server that refuses a
// version and then lists that same version (a server that was restarted
// or upgraded between the two, or one that rejects the first request it
// sees) is never asked again: mcp-go falls back to the initialize
// handshake, which such a server refuses too. The handshake state below
// does what mcp-go leaves out, in the taps, for every transport: one more
// server/discover, unchanged, when the refusal lists the version offered.
// It also keeps ProtocolModern's promise: no initialize handshake is ever
// sent then (mcp-go would send one after a failed discover).

// handshake is the state of one connection's initialize, carried in the
// context of Conn.initialize to the taps.
type handshake struct {
	// modernOnly refuses the initialize handshake (ProtocolModern).
	modernOnly bool

	mu sync.Mutex
	// retried is set once a refused server/discover was sent again.
	retried bool
	// discoverErr is the last error a server/discover was answered with.
	discoverErr *mcp.JSONRPCErrorDetails
}

type handshakeKey struct{}

func withHandshake(ctx context.Context, h *handshake) context.Context {
	return context.WithValue(ctx, handshakeKey{}, h)
}

// errModernOnly is the error of an initialize handshake that
// ProtocolModern does not send.
var errModernOnly = errors.New(`protocol "modern": the initialize handshake is not used`)

// sendHandshake sends req through send, applying the handshake rules of
// the context's state, if any: an initialize refused under ProtocolModern,
// and one server/discover sent again when the server refused the version
// it offered while listing it as supported.
func sendHandshake(ctx context.Context, req transport.JSONRPCRequest, send func(transport.JSONRPCRequest) (*transport.JSONRPCResponse, error)) (*transport.JSONRPCResponse, error) {
	h, _ := ctx.Value(handshakeKey{}).(*handshake)
	if h == nil {
		return send(req)
	}
	switch req.Method {
	case string(mcp.MethodInitialize):
		if h.modernOnly {
			return nil, errModernOnly
		}
	case methodDiscover:
		resp, err := send(req)
		if err != nil || resp == nil || resp.Error == nil {
			return resp, err
		}
		h.mu.Lock()
		h.discoverErr = resp.Error
		again := !h.retried && refusedOwnVersion(req, resp.Error)
		if again {
			h.retried = true
		}
		h.mu.Unlock()
		if !again {
			return resp, err
		}
		// The same request under an ID of its own: a transport may still
		// hold the first answer's ID while it forgets it.
		req.ID = mcp.NewRequestId(fmt.Sprintf("%s-again", req.ID.String()))
		return send(req)
	}
	return send(req)
}

// lastDiscoverError returns the error the last server/discover was
// answered with, or nil.
func (h *handshake) lastDiscoverError() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.discoverErr == nil {
		return nil
	}
	return h.discoverErr.AsError()
}

// refusedOwnVersion reports whether e refuses the protocol version req
// offered (-32022) while listing that version among the supported ones.
func refusedOwnVersion(req transport.JSONRPCRequest, e *mcp.JSONRPCErrorDetails) bool {
	if e.Code != mcp.UNSUPPORTED_PROTOCOL_VERSION {
		return false
	}
	var u mcp.UnsupportedProtocolVersionError
	if !errors.As(e.AsError(), &u) {
		return false
	}
	offered := offeredVersion(req)
	return mcp.IsModernProtocol(offered) && slices.Contains(u.Supported, offered) &&
		mcp.NegotiateMutuallySupportedVersion(u.Supported) == offered
}

// offeredVersion returns the protocol version in req's _meta, or "".
func offeredVersion(req transport.JSONRPCRequest) string {
	raw, err := json.Marshal(req.Params)
	if err != nil {
		return ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	var v string
	if json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &v) != nil {
		return ""
	}
	return v
}

// modernOnlyError explains a ProtocolModern connection whose
// server/discover failed.
func (h *handshake) modernOnlyError(err error) error {
	if d := h.lastDiscoverError(); d != nil {
		err = fmt.Errorf("server/discover: %w", d)
	}
	return fmt.Errorf("%w; only 2026-07-28 or later is allowed, and no initialize handshake is sent", err)
}

package mcpbridge

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/roots"
)

// Root is a directory or file the host offers servers as a place to work
// in (an MCP root).
type Root struct {
	// URI is an absolute file: URI ("file:///home/ada/project").
	URI string `json:"uri"`
	// Name is a name to show for it; "" for none.
	Name string `json:"name,omitempty"`
}

// DirRoot returns the Root of the directory or file at path (made
// absolute against the working directory), named after its last element.
// It does not check that path exists.
func DirRoot(path string) (Root, error) {
	uri, err := roots.FileURI(path)
	if err != nil {
		return Root{}, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Root{}, err
	}
	return Root{URI: uri, Name: filepath.Base(abs)}, nil
}

// ErrNoRoots is returned by [Bridge.SetRoots] on a Bridge whose
// [ClientFeatures.Roots] was nil: servers were told it offers no roots.
var ErrNoRoots = errors.New("roots not offered: ClientFeatures.Roots was nil")

// rootSet holds the roots the Bridge offers; safe for concurrent use.
type rootSet struct {
	mu   sync.Mutex
	list []mcp.Root // replaced, never modified
}

func newRootSet(rs []Root) *rootSet {
	if rs == nil {
		return nil
	}
	s := &rootSet{}
	s.set(rs)
	return s
}

func (s *rootSet) set(rs []Root) {
	list := make([]mcp.Root, len(rs))
	for i, r := range rs {
		list[i] = mcp.Root{URI: r.URI, Name: r.Name}
	}
	s.mu.Lock()
	s.list = list
	s.mu.Unlock()
}

// get returns the roots; the slice is the caller's.
func (s *rootSet) get() []mcp.Root {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.list)
}

// SetRoots replaces the roots offered to the servers (see
// [ClientFeatures.Roots]) and tells every connected server they changed
// (notifications/roots/list_changed; a 2026-07-28 server asks for them
// with each request that needs them and is told nothing). roots is
// copied. A root whose URI is not an absolute file: URI is refused and
// nothing changes; so is every call on a Bridge created without roots
// ([ErrNoRoots]). A server that cannot be told is logged, not an error:
// it has the new roots the next time it asks.
//
// For a user (see [WithUser]), the roots become that user's: they answer
// the questions of servers asked for that user (the others keep theirs,
// or the Bridge's), and only the user's own connections are told.
func (b *Bridge) SetRoots(ctx context.Context, rs []Root) error {
	if b.roots == nil {
		return ErrNoRoots
	}
	for _, r := range rs {
		if err := roots.Check(r.URI); err != nil {
			return err
		}
	}
	b.mu.Lock()
	u, err := b.enterLocked(ctx)
	if err != nil {
		b.mu.Unlock()
		return err
	}
	defer b.leave(u)
	var conns []*mcpconn.Conn
	var names []string
	if u == nil {
		b.roots.set(rs)
		for _, s := range b.servers {
			if s.link != nil {
				conns = append(conns, s.link.conn)
				names = append(names, s.cfg.Name)
			}
		}
	} else {
		u.roots = &rootSet{}
		u.roots.set(rs)
		for _, s := range u.inst {
			if s.link != nil && !s.link.common.Load() {
				conns = append(conns, s.link.conn)
				names = append(names, s.cfg.Name)
			}
		}
	}
	b.mu.Unlock()
	for i, c := range conns {
		if err := c.RootsChanged(ctx); err != nil {
			b.log.Warn("mcp server could not be told the roots changed", "server", names[i], "err", b.redact.Text(err.Error()))
		}
	}
	return nil
}

// rootsFunc returns the roots hook of a connection of s: nil when none
// are offered. A question is answered with the roots of the user it is
// for (see questionUser), the Bridge's for a user who set none.
func (b *Bridge) rootsFunc(s *server, l *link) func(context.Context) ([]mcp.Root, error) {
	if b.roots == nil {
		return nil
	}
	return func(ctx context.Context) ([]mcp.Root, error) {
		ctx, err := b.questionUser(ctx, s, l)
		if err != nil {
			b.log.Info("mcp server roots request refused", "server", s.cfg.Name, "err", err)
			return nil, err
		}
		if id := UserOf(ctx); id != "" {
			b.mu.Lock()
			var rs *rootSet
			if u := b.users[id]; u != nil {
				rs = u.roots
			}
			b.mu.Unlock()
			if rs != nil {
				return rs.get(), nil
			}
		}
		return b.roots.get(), nil
	}
}

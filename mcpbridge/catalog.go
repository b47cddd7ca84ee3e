package mcpbridge

import (
	"crypto/sha256"
	"strconv"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/registry"
)

// A user's tools are those of the shared servers and the user's own
// listings of the servers whose credentials are each user's. Most users
// of a server see the same list, so both levels are kept once:
//
//   - a listing (one server's tools list as some user got it, converted)
//     is interned by the SHA-256 of the server's name and the tools' JSON;
//     every user instance that listed the same bytes holds the same
//     *listing and its toolDefs, and the schemas are converted once;
//   - a catalog (a registry and its Tool views: the names, conflicts
//     settled in configuration order) is kept per combination of
//     listings, so a thousand users of the same servers share one.
//
// The user "" (a Bridge used without WithUser) keeps today's registry in
// Bridge.reg, Bridge.tools and Bridge.sorted. A change of a shared
// server's tools, or a server becoming one whose credentials are each
// user's, drops every user's catalog; each is built again when next used.

// listing is one server's tools, as some users listed them.
type listing struct {
	key  [sha256.Size]byte
	id   int // names the listing in a catalog's key
	defs []*toolDef
	refs int // user instances holding it
}

// catalog is the tools of every user with the same listings.
type catalog struct {
	key    string
	reg    *registry.Registry
	tools  map[string]*Tool // by registered name
	sorted []*Tool          // by registered name
	refs   int              // users holding it
}

// toolView is a set of registered tools: the Bridge's own or a catalog's.
type toolView struct {
	tools  map[string]*Tool
	sorted []*Tool
}

// internDefs converts listed, the tools s listed, and for a user's
// instance takes instead the toolDefs of an equal listing some user made
// before; the listing is returned too (nil for the Bridge's own servers,
// whose tools are converted as always).
func (b *Bridge) internDefs(s *server, listed []mcpconn.Tool) ([]*toolDef, *listing) {
	if s.base == nil {
		return convertTools(&s.cfg, listed, b.schemaOptions(), b.log), nil
	}
	h := sha256.New()
	h.Write([]byte(s.cfg.Name))
	for _, t := range listed {
		h.Write([]byte{0})
		h.Write(t.Raw)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	b.mu.Lock()
	if l := b.listings[key]; l != nil {
		b.mu.Unlock()
		return l.defs, l
	}
	b.mu.Unlock()
	defs := convertTools(&s.cfg, listed, b.schemaOptions(), b.log)
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.listings[key]; l != nil {
		return l.defs, l // another user's, converted meanwhile
	}
	b.lastListing++
	l := &listing{key: key, id: b.lastListing, defs: defs}
	b.listings[key] = l
	return defs, l
}

// setListingLocked makes l (from internDefs; nil for none) the tools of
// s, a user's instance: s holds it, and the user's catalog is built again
// when next used. Listings no instance holds are dropped.
func (b *Bridge) setListingLocked(s *server, l *listing) {
	if l == s.listing {
		return
	}
	old := s.listing
	s.listing, s.defs = l, nil
	if l != nil {
		l.refs++
		s.defs = l.defs
	}
	if old != nil {
		old.refs--
		for k, have := range b.listings {
			if have.refs <= 0 {
				delete(b.listings, k)
			}
		}
	}
	if u := b.users[s.user]; u != nil {
		b.releaseCatalogLocked(u)
	}
}

// releaseCatalogLocked lets go of u's catalog (dropped when no user holds
// it); the next catalogLocked builds it again.
func (b *Bridge) releaseCatalogLocked(u *userState) {
	c := u.cat
	if c == nil {
		return
	}
	u.cat = nil
	if c.refs--; c.refs <= 0 && b.catalogs[c.key] == c {
		delete(b.catalogs, c.key)
	}
}

// dropCatalogsLocked makes every user's catalog be built again when next
// used: a shared server's tools changed.
func (b *Bridge) dropCatalogsLocked() {
	for _, u := range b.users {
		u.cat = nil
	}
	clear(b.catalogs)
}

// viewLocked returns the tools u sees: the Bridge's own for nil (the user
// "") and when no server's credentials are each user's, else u's catalog.
func (b *Bridge) viewLocked(u *userState) toolView {
	if u == nil {
		return toolView{b.tools, b.sorted}
	}
	c := b.catalogLocked(u)
	if c == nil {
		return toolView{b.tools, b.sorted}
	}
	return toolView{c.tools, c.sorted}
}

// catalogLocked returns u's catalog, building (or finding) it for u's
// listings; nil when no server's credentials are each user's.
func (b *Bridge) catalogLocked(u *userState) *catalog {
	if u.cat != nil {
		return u.cat
	}
	var key strings.Builder
	any := false
	for _, base := range b.servers {
		if !b.perUserLocked(base) {
			continue
		}
		any = true
		id := 0
		if s := u.inst[base]; s != nil && s.listing != nil {
			id = s.listing.id
		}
		key.WriteString(strconv.Itoa(id))
		key.WriteByte('.')
	}
	if !any {
		return nil
	}
	c := b.catalogs[key.String()]
	if c == nil {
		c = b.buildCatalogLocked(key.String(), u)
		b.catalogs[c.key] = c
	}
	c.refs++
	u.cat = c
	return c
}

// buildCatalogLocked registers, in configuration order, the tools of the
// shared servers and u's listings of the others.
func (b *Bridge) buildCatalogLocked(key string, u *userState) *catalog {
	c := &catalog{key: key, reg: registry.New(b.order, &registry.Options{Scheme: b.scheme})}
	defsOf := map[string][]*toolDef{}
	if b.builtins != nil {
		defsOf[resourceToolsServer] = b.builtins.defs
		c.reg.SetTools(resourceToolsServer, toolNames(b.builtins.defs))
	}
	for _, base := range b.servers {
		defs := base.defs
		if b.perUserLocked(base) {
			defs = nil
			if s := u.inst[base]; s != nil {
				defs = s.defs
			}
		}
		defsOf[base.cfg.Name] = defs
		c.reg.SetTools(base.cfg.Name, toolNames(defs))
	}
	entries := c.reg.Entries()
	c.tools = make(map[string]*Tool, len(entries))
	c.sorted = make([]*Tool, 0, len(entries))
	byServer := map[string]map[string]*toolDef{}
	for _, e := range entries {
		m, ok := byServer[e.Server]
		if !ok {
			m = make(map[string]*toolDef, len(defsOf[e.Server]))
			for _, d := range defsOf[e.Server] {
				if _, dup := m[d.raw.Name]; !dup {
					m[d.raw.Name] = d
				}
			}
			byServer[e.Server] = m
		}
		d := m[e.ServerTool]
		if d == nil {
			continue
		}
		t := b.tools[e.Name] // the Bridge's own Tool, when it is the same
		if t == nil || t.def != d || !t.registeredAs(e) {
			var cfg *ServerConfig
			if s := b.byName[e.Server]; s != nil {
				cfg = &s.cfg
			} else if b.builtins != nil {
				cfg = &b.builtins.cfg
			} else {
				continue // cannot happen: every entry is a server's
			}
			t = newTool(e, d, cfg)
		}
		c.tools[e.Name] = t
		c.sorted = append(c.sorted, t)
	}
	return c
}

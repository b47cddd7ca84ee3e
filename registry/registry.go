// Package registry gives every tool of every MCP server a unique, valid
// Gemini function name and maps it back to its server and original name.
//
// Names are sanitized exactly as Gemini CLI does ([SanitizeName]). When two
// servers offer the same name, the server earlier in the configuration order
// keeps the bare name and the later one's tool becomes "server__tool"; any
// collision left (truncated names, "a"/"b__c" against "a__b"/"c", two names
// of one server that sanitize alike) is settled with a short stable hash.
// Nothing is ever overwritten silently: every [Entry] says why it has its
// name, and every change is reported in an [Update].
//
// The names depend only on the configured server order and each server's
// tool list, never on which server answered first:
//
//	reg := registry.New([]string{"files", "web"}, nil) // order from settings.json
//	reg.SetTools("web", []string{"fetch", "search"})
//	reg.SetTools("files", []string{"read", "fetch"})
//	e, ok := reg.Lookup("web__fetch") // {Server: "web", ServerTool: "fetch", Reason: Prefixed, ...}
package registry

import (
	"cmp"
	"slices"
	"sync"
)

// Registry holds the tools of a set of servers under unique registered names.
// It is safe for concurrent use. The zero Registry is not usable; call [New].
type Registry struct {
	order  map[string]int // configured position of each listed server
	scheme Scheme

	mu      sync.RWMutex
	servers map[string]*server
	sorted  []Entry         // all entries sorted by Name (unique): Lookup searches it
	byTool  map[toolKey]int // (server, original tool name) -> index in sorted

	// Scratch space of recompute, reused so that recomputing thousands of
	// names allocates little: resolve's table of taken names, and the
	// entries and byTool map of the computation before the current one
	// (nothing refers to them any more: every method copies entries out).
	taken       map[string]string
	spareSorted []Entry
	spareByTool map[toolKey]int
}

type toolKey struct{ server, tool string }

// New returns an empty Registry. order is the configuration order of the
// servers: a server earlier in it keeps a contested name. Servers that are
// not in order come after all listed ones, sorted by name; a name repeated
// in order counts at its first position. order is not retained. If opts is
// nil, the default options are used.
func New(order []string, opts *Options) *Registry {
	r := &Registry{
		order:   make(map[string]int, len(order)),
		servers: make(map[string]*server),
		byTool:  make(map[toolKey]int),
	}
	if opts != nil {
		r.scheme = opts.Scheme
	}
	for i, s := range order {
		if _, ok := r.order[s]; !ok {
			r.order[s] = i
		}
	}
	return r
}

// SetTools replaces the tool list of server (for example after discovery or
// a tools/list_changed notification) and recomputes every name. tools holds
// original tool names; a name given more than once is kept once, at its
// first position, and reported in Update.Duplicates. An empty list removes
// the server, like [Registry.RemoveServer]. tools is not retained or
// modified.
//
// The update lists the server's tools that were added or removed, and every
// tool of any server whose registered name changed as a result.
func (r *Registry) SetTools(server string, tools []string) Update {
	s, dups := newServer(server, tools, r.scheme)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(s.listed) == 0 {
		delete(r.servers, server)
	} else {
		r.servers[server] = s
	}
	u := r.recompute()
	u.Duplicates = dups
	return u
}

// RemoveServer removes server and its tools and recomputes every name;
// removing an unknown server changes nothing. The update lists the removed
// tools and every tool of another server whose name changed (one that had
// been prefixed because server held its bare name, for example).
func (r *Registry) RemoveServer(server string) Update {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.servers[server]; !ok {
		return Update{}
	}
	delete(r.servers, server)
	return r.recompute()
}

// recompute resolves all names from scratch and returns what changed.
// The caller holds r.mu for writing.
func (r *Registry) recompute() Update {
	servers := make([]*server, 0, len(r.servers))
	for _, s := range r.servers {
		servers = append(servers, s)
	}
	slices.SortFunc(servers, func(a, b *server) int {
		ai, aok := r.order[a.name]
		bi, bok := r.order[b.name]
		switch {
		case aok && bok:
			return cmp.Compare(ai, bi)
		case aok:
			return -1
		case bok:
			return 1
		}
		return cmp.Compare(a.name, b.name)
	})

	// Sorting the entries in place costs less than sorting indices and
	// copying: no second array of entries for the collector to scan.
	if r.taken == nil {
		r.taken = make(map[string]string)
	}
	sorted := resolve(servers, r.spareSorted, r.taken)
	slices.SortFunc(sorted, func(a, b Entry) int { return cmp.Compare(a.Name, b.Name) })
	byTool := r.spareByTool
	if byTool == nil {
		byTool = make(map[toolKey]int, len(sorted))
	}
	clear(byTool)
	for i, e := range sorted {
		byTool[toolKey{e.Server, e.ServerTool}] = i
	}

	var u Update
	for k, oldIdx := range r.byTool {
		old := r.sorted[oldIdx]
		newIdx, ok := byTool[k]
		switch {
		case !ok:
			u.Removed = append(u.Removed, old)
		case sorted[newIdx].Name != old.Name:
			u.Changed = append(u.Changed, Change{Old: old, New: sorted[newIdx]})
		}
	}
	for k, i := range byTool {
		if _, ok := r.byTool[k]; !ok {
			u.Added = append(u.Added, sorted[i])
		}
	}
	byEntryName := func(a, b Entry) int { return cmp.Compare(a.Name, b.Name) }
	slices.SortFunc(u.Added, byEntryName)
	slices.SortFunc(u.Removed, byEntryName)
	slices.SortFunc(u.Changed, func(a, b Change) int { return cmp.Compare(a.Old.Name, b.Old.Name) })

	// The previous entries are kept as scratch space, cleared so that the
	// strings they hold can be collected.
	clear(r.sorted)
	r.spareSorted, r.spareByTool = r.sorted, r.byTool
	r.byTool, r.sorted = byTool, sorted
	return u
}

// Lookup returns the entry registered under name, and whether there is one.
func (r *Registry) Lookup(name string) (Entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	i, ok := slices.BinarySearchFunc(r.sorted, name, func(e Entry, name string) int { return cmp.Compare(e.Name, name) })
	if !ok {
		return Entry{}, false
	}
	return r.sorted[i], true
}

// Name returns the registered name of the tool that server lists as tool,
// and whether there is one.
func (r *Registry) Name(server, tool string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	i, ok := r.byTool[toolKey{server, tool}]
	if !ok {
		return "", false
	}
	return r.sorted[i].Name, true
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.sorted)
}

// Entries returns every registered tool, sorted by registered name.
// The slice is the caller's.
func (r *Registry) Entries() []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.sorted)
}

// ServerEntries returns the tools of server in the order the server listed
// them (duplicates dropped), or nil for an unknown server. The slice is the
// caller's.
func (r *Registry) ServerEntries(server string) []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.servers[server]
	if !ok {
		return nil
	}
	out := make([]Entry, 0, len(s.listed))
	for _, t := range s.listed {
		out = append(out, r.sorted[r.byTool[toolKey{server, t}]])
	}
	return out
}

// Renames returns every tool registered under a name other than its original
// one (sanitized, prefixed or hashed), sorted by registered name. The slice
// is the caller's.
func (r *Registry) Renames() []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Entry
	for _, e := range r.sorted {
		if e.Renamed() {
			out = append(out, e)
		}
	}
	return out
}

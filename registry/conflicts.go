package registry

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"
)

// tool is one tool of a server with the names it may claim, computed once
// per SetTools.
type tool struct {
	name     string // original name
	base     string // SanitizeName(name), or QualifiedName(server, name) under QualifiedNames
	prefixed string // SanitizeName(server + "__" + name); "" under QualifiedNames
	reason   Reason // of base, when base is not name: Sanitized or Qualified
}

// server is one server's tool list as last given to SetTools.
type server struct {
	name   string
	listed []string // original names in listed order, duplicates dropped
	// ranked holds the tools in the order they claim names: names that need
	// no sanitizing first (so a valid "a_b" keeps its name against "a b"),
	// then by original name. Ranking by name rather than by list position
	// keeps the result stable when a server lists its tools in another order.
	ranked []tool
}

func newServer(name string, tools []string, scheme Scheme) (*server, []string) {
	s := &server{name: name, listed: make([]string, 0, len(tools)), ranked: make([]tool, 0, len(tools))}
	seen := make(map[string]bool, len(tools))
	var dups []string
	for _, t := range tools {
		if seen[t] {
			dups = append(dups, t)
			continue
		}
		seen[t] = true
		s.listed = append(s.listed, t)
		if scheme == QualifiedNames {
			s.ranked = append(s.ranked, tool{name: t, base: QualifiedName(name, t), reason: Qualified})
		} else {
			s.ranked = append(s.ranked, tool{name: t, base: SanitizeName(t), prefixed: SanitizeName(name + "__" + t), reason: Sanitized})
		}
	}
	slices.SortFunc(s.ranked, func(a, b tool) int {
		if ax, bx := a.name == a.base, b.name == b.base; ax != bx {
			if ax {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.name, b.name)
	})
	slices.Sort(dups)
	return s, slices.Compact(dups)
}

// loser is a tool that could not have the name it wanted.
type loser struct {
	server *server
	tool   *tool
	wanted string // the name it wanted
	holder string // the server whose tool holds wanted
}

// resolve gives every tool of servers, which are in configuration order, a
// unique registered name and returns the entries in no particular order.
// It is a pure function of its input and runs in time linear in the number
// of tools (plus hashing for the rare collisions):
//
//  1. bare names: in server order, then rank, the first tool whose sanitized
//     name is free takes it;
//  2. prefixes: a tool that lost its bare name to another server takes
//     SanitizeName(server + "__" + tool) if free;
//  3. hashes: every tool still without a name (its prefixed name taken, or
//     its bare name taken by a tool of its own server) takes its wanted
//     name with a stable hash suffix; see hashedName.
//
// Bare names are all assigned before any prefixed one, so a tool that a
// server really calls "b__fetch" is never displaced by server b's "fetch".
//
// out and taken are scratch space for the result and the names taken: out
// is appended to from length 0 and taken is cleared first, so a caller can
// reuse both between calls.
func resolve(servers []*server, out []Entry, taken map[string]string) []Entry {
	n := 0
	for _, s := range servers {
		n += len(s.ranked)
	}
	out = slices.Grow(out[:0], n)
	clear(taken) // registered name -> holding server
	add := func(e Entry) {
		out = append(out, e)
		taken[e.Name] = e.Server
	}
	var lost []loser
	for _, s := range servers {
		for i := range s.ranked {
			t := &s.ranked[i]
			if h, ok := taken[t.base]; ok {
				lost = append(lost, loser{s, t, t.base, h})
				continue
			}
			e := Entry{Name: t.base, Server: s.name, ServerTool: t.name}
			if t.base != t.name {
				e.Reason = t.reason
			}
			add(e)
		}
	}
	var hash []loser
	for _, l := range lost {
		if l.holder == l.server.name || l.tool.prefixed == "" {
			hash = append(hash, l) // prefixing with its own server (or under QualifiedNames) cannot help
			continue
		}
		if h, ok := taken[l.tool.prefixed]; ok {
			hash = append(hash, loser{l.server, l.tool, l.tool.prefixed, h})
			continue
		}
		add(Entry{Name: l.tool.prefixed, Server: l.server.name, ServerTool: l.tool.name,
			Reason: Prefixed, Wanted: l.wanted, Holder: l.holder})
	}
	for _, l := range hash {
		name := hashedName(l.wanted, l.server.name, l.tool.name, taken)
		add(Entry{Name: name, Server: l.server.name, ServerTool: l.tool.name,
			Reason: Hashed, Wanted: l.wanted, Holder: l.holder})
	}
	return out
}

// hashedName returns stem + "_" + the first 8 hex digits of a SHA-256 of
// (server, tool), with stem cut so the result has at most 63 characters.
// If that name is taken it tries 12, 16, 24 and 32 digits, then appends
// "_2", "_3", ... until a name is free. stem must be a sanitized name, so
// the result is valid; it depends only on its arguments and taken.
func hashedName(stem, server, tool string, taken map[string]string) string {
	h := sha256.New()
	h.Write(binary.AppendUvarint(nil, uint64(len(server)))) // unambiguous split
	h.Write([]byte(server))
	h.Write([]byte(tool))
	sum := hex.EncodeToString(h.Sum(nil))
	join := func(suffix string) string {
		keep := min(len(stem), MaxNameLen-len(suffix))
		return stem[:keep] + suffix
	}
	for _, digits := range []int{8, 12, 16, 24, 32} {
		if name := join("_" + sum[:digits]); !isTaken(taken, name) {
			return name
		}
	}
	for i := 2; ; i++ {
		if name := join("_" + sum[:8] + "_" + strconv.Itoa(i)); !isTaken(taken, name) {
			return name
		}
	}
}

func isTaken(taken map[string]string, name string) bool {
	_, ok := taken[name]
	return ok
}

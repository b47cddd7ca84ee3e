package registry

import (
	"fmt"
	"strconv"
)

// Reason says why a tool is registered under the name it has. When several
// steps applied (a name sanitized, then prefixed), Reason is the last.
type Reason int

const (
	// Unchanged: the tool is registered under its original name.
	Unchanged Reason = iota
	// Sanitized: the original name was not a valid function name (or was
	// longer than 63 characters); the tool is registered as
	// SanitizeName(tool). Such a tool counts as renamed.
	Sanitized
	// Prefixed: the sanitized name belonged to a server earlier in the
	// configuration order ([Entry.Holder]); the tool is registered as
	// SanitizeName(server + "__" + tool).
	Prefixed
	// Hashed: the name the tool wanted ([Entry.Wanted]) was still taken,
	// after prefixing or by another tool of the same server whose name
	// sanitizes alike; the tool is registered under that name with a
	// short stable hash of its server and original tool name appended.
	Hashed
	// Qualified: the [QualifiedNames] scheme registered the tool as
	// [QualifiedName](server, tool).
	Qualified
)

// String returns "unchanged", "sanitized", "prefixed", "hashed" or
// "qualified".
func (r Reason) String() string {
	switch r {
	case Unchanged:
		return "unchanged"
	case Sanitized:
		return "sanitized"
	case Prefixed:
		return "prefixed"
	case Hashed:
		return "hashed"
	case Qualified:
		return "qualified"
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// Entry is one registered tool.
type Entry struct {
	Name       string // registered function name; always satisfies ValidName
	Server     string // server offering the tool
	ServerTool string // the tool's own name, as the server listed it
	Reason     Reason // why Name is what it is
	// Wanted is the name this tool could not have, and Holder the server
	// whose tool holds it (possibly Server itself). Both are set only when
	// Reason is Prefixed or Hashed.
	Wanted, Holder string
}

// Renamed reports whether the tool is registered under a name other than its
// original one (Reason is not Unchanged).
func (e Entry) Renamed() bool { return e.Reason != Unchanged }

// String describes the entry for logs, for example
//
//	server "b" tool "fetch" registered as "b__fetch" (prefixed: "fetch" belongs to server "a")
func (e Entry) String() string {
	s := fmt.Sprintf("server %q tool %q registered as %q (%s", e.Server, e.ServerTool, e.Name, e.Reason)
	if e.Wanted != "" {
		s += fmt.Sprintf(": %q belongs to server %q", e.Wanted, e.Holder)
	}
	return s + ")"
}

// Change is a tool that stays registered under a new name.
type Change struct {
	Old, New Entry // Old.Server == New.Server and Old.ServerTool == New.ServerTool
}

// Update reports what one call of [Registry.SetTools] or
// [Registry.RemoveServer] changed, so a caller can re-declare its functions.
// Slices are sorted by registered name (Changed by Old.Name) and owned by the
// caller.
type Update struct {
	Added   []Entry  // tools newly registered
	Removed []Entry  // tools no longer registered, as they were
	Changed []Change // tools whose registered name changed
	// Duplicates are original tool names that SetTools was given more than
	// once for the server; only the first was kept. Sorted.
	Duplicates []string
}

// Empty reports whether the update changed no registered name and dropped
// no duplicate.
func (u Update) Empty() bool {
	return len(u.Added) == 0 && len(u.Removed) == 0 && len(u.Changed) == 0 && len(u.Duplicates) == 0
}

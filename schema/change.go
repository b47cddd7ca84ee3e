package schema

// Change records one rewrite made by [Convert].
type Change struct {
	// Path locates the rewritten node in the ORIGINAL schema as dotted
	// keywords and names ("properties.x.anyOf.1"); "" is the root. Content
	// reached through a $ref is reported at its definition
	// ("$defs.Item.properties.id"), once, however often it is used.
	Path string
	// Keyword is the JSON Schema keyword concerned ("$ref", "oneOf", "enum").
	Keyword string
	// Detail says briefly what was done ("oneOf treated as anyOf").
	Detail string
}

// String formats c as "path: keyword: detail", showing the root as "(root)".
func (c Change) String() string {
	p := c.Path
	if p == "" {
		p = "(root)"
	}
	return p + ": " + c.Keyword + ": " + c.Detail
}

// changeLog collects changes in discovery order without duplicates.
type changeLog struct {
	list []Change
	seen map[Change]bool
}

func (l *changeLog) add(path, keyword, detail string) {
	c := Change{Path: path, Keyword: keyword, Detail: detail}
	if l.seen == nil {
		l.seen = make(map[Change]bool)
	}
	if l.seen[c] {
		return
	}
	l.seen[c] = true
	l.list = append(l.list, c)
}

// clone returns an independent copy of l.
func (l *changeLog) clone() changeLog {
	out := changeLog{list: append([]Change(nil), l.list...), seen: make(map[Change]bool, len(l.seen))}
	for k, v := range l.seen {
		out.seen[k] = v
	}
	return out
}

package main

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestSessionStoreLookup(t *testing.T) {
	tests := []struct {
		name    string
		max     int
		ops     []string // "+id" adds a session, "id" looks one up
		lookup  string
		want    string // ID found; "" when an error is wanted
		wantErr error
	}{
		{name: "empty store has no latest", max: 3, lookup: "", wantErr: errNoSession},
		{name: "unknown ID", max: 3, ops: []string{"+a"}, lookup: "b", wantErr: errUnknownSession},
		{name: "by ID", max: 3, ops: []string{"+a", "+b"}, lookup: "a", want: "a"},
		{name: "latest is the last added", max: 3, ops: []string{"+a", "+b", "+c"}, lookup: "", want: "c"},
		{name: "latest is the last used", max: 3, ops: []string{"+a", "+b", "+c", "a"}, lookup: "", want: "a"},
		{name: "oldest evicted beyond max", max: 2, ops: []string{"+a", "+b", "+c"}, lookup: "a", wantErr: errUnknownSession},
		{name: "newer kept beyond max", max: 2, ops: []string{"+a", "+b", "+c"}, lookup: "b", want: "b"},
		{name: "used session survives eviction", max: 2, ops: []string{"+a", "+b", "a", "+c"}, lookup: "a", want: "a"},
		{name: "least recently used evicted", max: 2, ops: []string{"+a", "+b", "a", "+c"}, lookup: "b", wantErr: errUnknownSession},
		{name: "zero max means the default", max: 0, ops: []string{"+a"}, lookup: "a", want: "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newSessionStore(tt.max)
			for _, op := range tt.ops {
				if id, ok := strings.CutPrefix(op, "+"); ok {
					st.add(&session{id: id})
				} else if _, err := st.lookup(op); err != nil {
					t.Fatalf("lookup(%q) = %v", op, err)
				}
			}
			got, err := st.lookup(tt.lookup)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("lookup(%q) = %v, want error %v", tt.lookup, err, tt.wantErr)
				}
				return
			}
			if err != nil || got.id != tt.want {
				t.Fatalf("lookup(%q) = %v, %v, want session %q", tt.lookup, got, err, tt.want)
			}
		})
	}
}

func TestSessionStoreEvictsBeyondMax(t *testing.T) {
	st := newSessionStore(3)
	for range 10 {
		st.add(&session{id: newSessionID()})
	}
	if got := st.len(); got != 3 {
		t.Errorf("len() after 10 adds = %d, want 3", got)
	}
}

func TestNewSessionID(t *testing.T) {
	uuid4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := make(map[string]bool)
	for range 100 {
		id := newSessionID()
		if !uuid4.MatchString(id) {
			t.Fatalf("newSessionID() = %q, want a version 4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("newSessionID() = %q twice", id)
		}
		seen[id] = true
	}
}

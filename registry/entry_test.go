package registry

import "testing"

func TestEntryString(t *testing.T) {
	tests := []struct {
		e    Entry
		want string
	}{
		{Entry{Name: "a", Server: "s", ServerTool: "a"}, `server "s" tool "a" registered as "a" (unchanged)`},
		{Entry{Name: "b__fetch", Server: "b", ServerTool: "fetch", Reason: Prefixed, Wanted: "fetch", Holder: "a"},
			`server "b" tool "fetch" registered as "b__fetch" (prefixed: "fetch" belongs to server "a")`},
		{Entry{Reason: Reason(9)}, `server "" tool "" registered as "" (Reason(9))`},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.e, got, tt.want)
		}
	}
}

func TestReasonString(t *testing.T) {
	for r, want := range map[Reason]string{Unchanged: "unchanged", Sanitized: "sanitized", Prefixed: "prefixed", Hashed: "hashed", Reason(-2): "Reason(-2)"} {
		if got := r.String(); got != want {
			t.Errorf("Reason(%d).String() = %q, want %q", int(r), got, want)
		}
	}
}

func TestRenamed(t *testing.T) {
	for _, tt := range []struct {
		r    Reason
		want bool
	}{{Unchanged, false}, {Sanitized, true}, {Prefixed, true}, {Hashed, true}} {
		if got := (Entry{Reason: tt.r}).Renamed(); got != tt.want {
			t.Errorf("Entry{Reason: %s}.Renamed() = %v, want %v", tt.r, got, tt.want)
		}
	}
}

func TestUpdateEmpty(t *testing.T) {
	for _, tt := range []struct {
		name string
		u    Update
		want bool
	}{
		{"zero", Update{}, true},
		{"empty slices", Update{Added: []Entry{}, Duplicates: []string{}}, true},
		{"added", Update{Added: []Entry{{Name: "a"}}}, false},
		{"removed", Update{Removed: []Entry{{Name: "a"}}}, false},
		{"changed", Update{Changed: []Change{{}}}, false},
		{"duplicates", Update{Duplicates: []string{"a"}}, false},
	} {
		if got := tt.u.Empty(); got != tt.want {
			t.Errorf("%s: Empty() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

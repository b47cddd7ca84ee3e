package registry

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tricky has conflicts of every kind across listed and unlisted servers.
var tricky = servers{
	{"files", []string{"read", "fetch", "a b", "a_b"}},
	{"web", []string{"fetch", "search", "files__fetch"}},
	{"my server", []string{"fetch", "read", "日本"}},
	{"files__x", []string{"y"}},
	{"files", []string{"read", "fetch", "a b", "a_b"}}, // replaced by the same list
	{"zeta", []string{"fetch", "x__y"}},                // not in the order
	{"alpha", []string{"fetch", "search"}},             // not in the order
}

var trickyOrder = []string{"web", "files", "my server", "files__x"}

// permutations calls f with every ordering of in.
func permutations(in servers, f func(servers)) {
	var rec func(k int)
	rec = func(k int) {
		if k == len(in) {
			f(in)
			return
		}
		for i := k; i < len(in); i++ {
			in[k], in[i] = in[i], in[k]
			rec(k + 1)
			in[k], in[i] = in[i], in[k]
		}
	}
	rec(0)
}

func TestArrivalOrder(t *testing.T) {
	in := append(servers(nil), tricky[:4]...)
	in = append(in, tricky[5:]...)
	want := register(trickyOrder, in).Entries()
	n := 0
	permutations(in, func(p servers) {
		n++
		if diff := cmp.Diff(want, register(trickyOrder, p).Entries()); diff != "" {
			t.Fatalf("Entries() after arrival order %v mismatch (-want +got):\n%s", names(p), diff)
		}
	})
	if n != 720 {
		t.Errorf("tried %d orders, want 720", n)
	}
	// Removing a server and adding it back gives the same names.
	r := register(trickyOrder, in)
	r.RemoveServer("web")
	r.SetTools("web", tricky[1].tools)
	if diff := cmp.Diff(want, r.Entries()); diff != "" {
		t.Errorf("Entries() after removing and re-adding web mismatch (-want +got):\n%s", diff)
	}
	// A server listing its tools in another order keeps every name.
	r.SetTools("files", []string{"a_b", "a b", "fetch", "read"})
	if diff := cmp.Diff(want, r.Entries()); diff != "" {
		t.Errorf("Entries() after files reordered its list mismatch (-want +got):\n%s", diff)
	}
}

func names(in servers) []string {
	var out []string
	for _, s := range in {
		out = append(out, s.name)
	}
	return out
}

func TestUnlistedServersComeAfter(t *testing.T) {
	r := register([]string{"b", "b", "a"}, servers{{"zz", []string{"t"}}, {"a", []string{"t"}}, {"c", []string{"t"}}, {"b", []string{"t"}}})
	got := map[string]string{}
	for _, e := range r.Entries() {
		got[e.Server] = e.Name
	}
	want := map[string]string{"b": "t", "a": "a__t", "c": "c__t", "zz": "zz__t"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names by server mismatch (-want +got):\n%s", diff)
	}
}

func TestUpdates(t *testing.T) {
	r := New([]string{"a", "b"}, nil)
	steps := []struct {
		name string
		do   func() Update
		want Update
	}{{
		name: "later server first",
		do:   func() Update { return r.SetTools("b", []string{"fetch", "x"}) },
		want: Update{Added: []Entry{
			{Name: "fetch", Server: "b", ServerTool: "fetch"},
			{Name: "x", Server: "b", ServerTool: "x"},
		}},
	}, {
		name: "earlier server takes the bare name",
		do:   func() Update { return r.SetTools("a", []string{"fetch", "fetch", "y y", "fetch", "y y"}) },
		want: Update{
			Added: []Entry{
				{Name: "fetch", Server: "a", ServerTool: "fetch"},
				{Name: "y_y", Server: "a", ServerTool: "y y", Reason: Sanitized},
			},
			Changed: []Change{{
				Old: Entry{Name: "fetch", Server: "b", ServerTool: "fetch"},
				New: Entry{Name: "b__fetch", Server: "b", ServerTool: "fetch", Reason: Prefixed, Wanted: "fetch", Holder: "a"},
			}},
			Duplicates: []string{"fetch", "y y"},
		},
	}, {
		name: "same list again changes nothing",
		do:   func() Update { return r.SetTools("a", []string{"y y", "fetch"}) },
		want: Update{},
	}, {
		name: "list_changed drops fetch",
		do:   func() Update { return r.SetTools("a", []string{"y y", "z"}) },
		want: Update{
			Added:   []Entry{{Name: "z", Server: "a", ServerTool: "z"}},
			Removed: []Entry{{Name: "fetch", Server: "a", ServerTool: "fetch"}},
			Changed: []Change{{
				Old: Entry{Name: "b__fetch", Server: "b", ServerTool: "fetch", Reason: Prefixed, Wanted: "fetch", Holder: "a"},
				New: Entry{Name: "fetch", Server: "b", ServerTool: "fetch"},
			}},
		},
	}, {
		name: "remove unknown server",
		do:   func() Update { return r.RemoveServer("nope") },
		want: Update{},
	}, {
		name: "empty list removes the server",
		do:   func() Update { return r.SetTools("a", nil) },
		want: Update{Removed: []Entry{
			{Name: "y_y", Server: "a", ServerTool: "y y", Reason: Sanitized},
			{Name: "z", Server: "a", ServerTool: "z"},
		}},
	}, {
		name: "remove server",
		do:   func() Update { return r.RemoveServer("b") },
		want: Update{Removed: []Entry{
			{Name: "fetch", Server: "b", ServerTool: "fetch"},
			{Name: "x", Server: "b", ServerTool: "x"},
		}},
	}}
	for _, st := range steps {
		got := st.do()
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Fatalf("%s: update mismatch (-want +got):\n%s", st.name, diff)
		}
		if got.Empty() != cmp.Equal(st.want, Update{}) {
			t.Errorf("%s: Empty() = %v, want %v", st.name, got.Empty(), !got.Empty())
		}
	}
	if n := r.Len(); n != 0 {
		t.Errorf("Len() = %d after removing everything, want 0", n)
	}
}

func TestQueries(t *testing.T) {
	r := register(trickyOrder, tricky)
	all := r.Entries()
	if len(all) != r.Len() {
		t.Fatalf("len(Entries()) = %d, Len() = %d", len(all), r.Len())
	}
	seen := map[string]bool{}
	for i, e := range all {
		if i > 0 && all[i-1].Name >= e.Name {
			t.Errorf("Entries() not sorted: %q before %q", all[i-1].Name, e.Name)
		}
		if seen[e.Name] {
			t.Errorf("Entries() has %q twice", e.Name)
		}
		seen[e.Name] = true
		if got, ok := r.Lookup(e.Name); !ok || got != e {
			t.Errorf("Lookup(%q) = %v, %v, want %v, true", e.Name, got, ok, e)
		}
		if got, ok := r.Name(e.Server, e.ServerTool); !ok || got != e.Name {
			t.Errorf("Name(%q, %q) = %q, %v, want %q, true", e.Server, e.ServerTool, got, ok, e.Name)
		}
	}
	if _, ok := r.Lookup("nope"); ok {
		t.Errorf("Lookup(nope) found an entry")
	}
	if _, ok := r.Name("web", "nope"); ok {
		t.Errorf("Name(web, nope) found an entry")
	}

	var listed []string
	for _, e := range r.ServerEntries("my server") {
		listed = append(listed, e.ServerTool+"="+e.Name)
	}
	want := []string{"fetch=my_server__fetch", "read=my_server__read", "日本=__"}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("ServerEntries(my server) mismatch (-want +got):\n%s", diff)
	}
	if got := r.ServerEntries("nope"); got != nil {
		t.Errorf("ServerEntries(nope) = %v, want nil", got)
	}

	renamed := map[string]bool{}
	for _, e := range r.Renames() {
		if !e.Renamed() {
			t.Errorf("Renames() has %s, which is not renamed", e)
		}
		renamed[e.Name] = true
	}
	for _, e := range all {
		if e.Renamed() != renamed[e.Name] {
			t.Errorf("Renames() and Entries() disagree on %s", e)
		}
	}

	// The caller owns returned slices.
	all[0].Name = "mutated"
	if r.Entries()[0].Name == "mutated" {
		t.Errorf("Entries() returned the registry's own slice")
	}
}

func TestConcurrentUse(t *testing.T) {
	want := register(trickyOrder, tricky).Entries()
	r := New(trickyOrder, nil)
	var wg sync.WaitGroup
	for i, s := range tricky {
		wg.Go(func() {
			for j := range 20 {
				if j%5 == 4 && i%2 == 0 {
					r.RemoveServer(s.name)
				}
				r.SetTools(s.name, s.tools)
			}
		})
		wg.Go(func() {
			for range 50 {
				for _, e := range r.Entries() {
					if got, ok := r.Lookup(e.Name); ok && (got.Name != e.Name || !ValidName(got.Name)) {
						t.Errorf("Lookup(%q) = %v", e.Name, got)
					}
				}
				r.ServerEntries(s.name)
				r.Renames()
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(want, r.Entries()); diff != "" {
		t.Errorf("Entries() after concurrent registration mismatch (-want +got):\n%s", diff)
	}
}

// parseServers reads fuzz input: one server per line, "server\ttool\ttool...".
// A server named again is ignored.
func parseServers(data string) servers {
	var in servers
	seen := map[string]bool{}
	for line := range strings.SplitSeq(data, "\n") {
		f := strings.Split(line, "\t")
		if seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		in = append(in, struct {
			name  string
			tools []string
		}{f[0], f[1:]})
	}
	return in
}

func FuzzRegistry(f *testing.F) {
	f.Add("a\tfetch\tb__c\nb\tfetch\na__b\tc\na\tx", uint64(1))
	f.Add("s\ta b\ta_b\ta:b\n1srv\t1abc\t_1abc\n\t\t", uint64(2))
	f.Add("x\t"+pattern(80)+"\t"+pattern(81)+"\ny\t"+pattern(80)+"\tx__"+pattern(80), uint64(3))
	f.Add("日本\t日本\t__\n__\t日本\t__\t____", uint64(4))
	f.Fuzz(func(t *testing.T, data string, seed uint64) {
		in := parseServers(data)
		var order []string
		for i, s := range in {
			if i%3 != 2 { // leave some servers unlisted
				order = append([]string{s.name}, order...)
			}
		}
		scheme := Scheme(seed % 2) // both schemes keep every property below
		r := registerScheme(order, in, scheme)
		want := r.Entries()

		tools := map[toolKey]bool{}
		for _, s := range in {
			for _, tool := range s.tools {
				tools[toolKey{s.name, tool}] = true
			}
		}
		if len(want) != len(tools) {
			t.Fatalf("registered %d tools, want %d", len(want), len(tools))
		}
		seen := map[string]bool{}
		for _, e := range want {
			if !ValidName(e.Name) || len(e.Name) > MaxNameLen || SanitizeName(e.Name) != e.Name {
				t.Fatalf("registered %s: not a valid name of at most 63 characters", e)
			}
			if seen[e.Name] {
				t.Fatalf("registered %q twice", e.Name)
			}
			seen[e.Name] = true
			if !tools[toolKey{e.Server, e.ServerTool}] {
				t.Fatalf("registered %s, which nobody offered", e)
			}
			if got, ok := r.Lookup(e.Name); !ok || got != e {
				t.Fatalf("Lookup(%q) = %v, %v, want %v", e.Name, got, ok, e)
			}
		}

		rng := rand.New(rand.NewPCG(seed, seed>>1))
		shuffled := append(servers(nil), in...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if diff := cmp.Diff(want, registerScheme(order, shuffled, scheme).Entries()); diff != "" {
			t.Fatalf("Entries() after arrival order %q mismatch (-want +got):\n%s", names(shuffled), diff)
		}
	})
}

package registry

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hex8 computes the hash suffix independently of hashedName: SHA-256 over
// the length of server as a uvarint (one byte for short names), server, tool.
func hexN(server, tool string, n int) string {
	sum := sha256.Sum256([]byte(string(rune(len(server))) + server + tool))
	return fmt.Sprintf("%x", sum)[:n]
}

func hex8(server, tool string) string { return hexN(server, tool, 8) }

// servers is a test input: servers with their tool lists, registered in the
// order given.
type servers []struct {
	name  string
	tools []string
}

func register(order []string, in servers) *Registry {
	return registerScheme(order, in, BareNames)
}

// registerScheme is register under scheme.
func registerScheme(order []string, in servers, scheme Scheme) *Registry {
	r := New(order, &Options{Scheme: scheme})
	for _, s := range in {
		r.SetTools(s.name, s.tools)
	}
	return r
}

func TestConflicts(t *testing.T) {
	long1 := "x" + pattern(40) + "ONE" + pattern(40) // 84 chars, same head and tail as long2
	long2 := "x" + pattern(40) + "TWO" + pattern(40)
	long3 := "x" + pattern(40) + "SIX" + pattern(40)
	trunc := SanitizeName(long1)
	tests := []struct {
		name  string
		order []string
		in    servers
		want  []Entry // any order
	}{{
		name:  "issue names on one server",
		order: []string{"s"},
		in: servers{{"s", []string{"myFunction", "invalid-name with spaces", "!@#$%^&*()",
			"namespace:tool", "alsoValid-123.name", "1abc", "日本語"}}},
		want: []Entry{
			{Name: "_1abc", Server: "s", ServerTool: "1abc", Reason: Sanitized},
			{Name: "___", Server: "s", ServerTool: "日本語", Reason: Sanitized},
			{Name: "__________", Server: "s", ServerTool: "!@#$%^&*()", Reason: Sanitized},
			{Name: "alsoValid-123.name", Server: "s", ServerTool: "alsoValid-123.name"},
			{Name: "invalid-name_with_spaces", Server: "s", ServerTool: "invalid-name with spaces", Reason: Sanitized},
			{Name: "myFunction", Server: "s", ServerTool: "myFunction"},
			{Name: "namespace_tool", Server: "s", ServerTool: "namespace:tool", Reason: Sanitized},
		},
	}, {
		name:  "same tool on three servers",
		order: []string{"a", "b", "c"},
		in:    servers{{"c", []string{"fetch"}}, {"a", []string{"fetch"}}, {"b", []string{"fetch"}}},
		want: []Entry{
			{Name: "b__fetch", Server: "b", ServerTool: "fetch", Reason: Prefixed, Wanted: "fetch", Holder: "a"},
			{Name: "c__fetch", Server: "c", ServerTool: "fetch", Reason: Prefixed, Wanted: "fetch", Holder: "a"},
			{Name: "fetch", Server: "a", ServerTool: "fetch"},
		},
	}, {
		name:  "server name needs sanitizing",
		order: []string{"my server", "1srv"},
		in:    servers{{"1srv", []string{"run"}}, {"my server", []string{"run"}}},
		want: []Entry{
			{Name: "_1srv__run", Server: "1srv", ServerTool: "run", Reason: Prefixed, Wanted: "run", Holder: "my server"},
			{Name: "run", Server: "my server", ServerTool: "run"},
		},
	}, {
		name:  "a/b__c against a__b/c",
		order: []string{"x", "a", "a__b"},
		in:    servers{{"x", []string{"b__c", "c"}}, {"a", []string{"b__c"}}, {"a__b", []string{"c"}}},
		want: []Entry{
			{Name: "a__b__c", Server: "a", ServerTool: "b__c", Reason: Prefixed, Wanted: "b__c", Holder: "x"},
			{Name: "a__b__c_" + hex8("a__b", "c"), Server: "a__b", ServerTool: "c", Reason: Hashed, Wanted: "a__b__c", Holder: "a"},
			{Name: "b__c", Server: "x", ServerTool: "b__c"},
			{Name: "c", Server: "x", ServerTool: "c"},
		},
	}, {
		name:  "bare name beats a prefixed one",
		order: []string{"a", "b", "c"},
		in:    servers{{"a", []string{"fetch"}}, {"b", []string{"fetch"}}, {"c", []string{"b__fetch"}}},
		want: []Entry{
			{Name: "b__fetch", Server: "c", ServerTool: "b__fetch"},
			{Name: "b__fetch_" + hex8("b", "fetch"), Server: "b", ServerTool: "fetch", Reason: Hashed, Wanted: "b__fetch", Holder: "c"},
			{Name: "fetch", Server: "a", ServerTool: "fetch"},
		},
	}, {
		name:  "two names of one server sanitize alike",
		order: []string{"s"},
		in:    servers{{"s", []string{"a b", "a_b", "a:b"}}},
		want: []Entry{
			{Name: "a_b", Server: "s", ServerTool: "a_b"},
			{Name: "a_b_" + hex8("s", "a b"), Server: "s", ServerTool: "a b", Reason: Hashed, Wanted: "a_b", Holder: "s"},
			{Name: "a_b_" + hex8("s", "a:b"), Server: "s", ServerTool: "a:b", Reason: Hashed, Wanted: "a_b", Holder: "s"},
		},
	}, {
		name:  "truncation collision on one server",
		order: []string{"s"},
		in:    servers{{"s", []string{long2, long1}}},
		want: []Entry{
			{Name: trunc, Server: "s", ServerTool: long1, Reason: Sanitized},
			{Name: trunc[:54] + "_" + hex8("s", long2), Server: "s", ServerTool: long2, Reason: Hashed, Wanted: trunc, Holder: "s"},
		},
	}, {
		name:  "truncation collision across servers, then of the prefixed names",
		order: []string{"a", "b"},
		in:    servers{{"b", []string{long2, long3}}, {"a", []string{long1}}},
		want: func() []Entry {
			pre := SanitizeName("b__" + long2)
			return []Entry{
				{Name: pre, Server: "b", ServerTool: long3, Reason: Prefixed, Wanted: trunc, Holder: "a"},
				{Name: pre[:54] + "_" + hex8("b", long2), Server: "b", ServerTool: long2, Reason: Hashed, Wanted: pre, Holder: "b"},
				{Name: trunc, Server: "a", ServerTool: long1, Reason: Sanitized},
			}
		}(),
	}, {
		name:  "hashed name taken by a real tool gets more digits",
		order: []string{"a", "s"},
		in:    servers{{"a", []string{"a_b_" + hex8("s", "a b")}}, {"s", []string{"a_b", "a b"}}},
		want: []Entry{
			{Name: "a_b", Server: "s", ServerTool: "a_b"},
			{Name: "a_b_" + hex8("s", "a b"), Server: "a", ServerTool: "a_b_" + hex8("s", "a b")},
			{Name: "a_b_" + hexN("s", "a b", 12), Server: "s", ServerTool: "a b", Reason: Hashed, Wanted: "a_b", Holder: "s"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := register(tt.order, tt.in).Entries()
			want := slices.SortedFunc(slices.Values(tt.want), func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Entries() mismatch (-want +got):\n%s", diff)
			}
			for _, e := range got {
				if !ValidName(e.Name) || len(e.Name) > MaxNameLen {
					t.Errorf("Entries() has %s, not a valid name of at most 63 characters", e)
				}
			}
		})
	}
}

func TestHashedNameFallback(t *testing.T) {
	taken := map[string]string{}
	for _, n := range []int{8, 12, 16, 24, 32} {
		taken["stem_"+hexN("s", "t", n)] = "x"
	}
	taken["stem_"+hex8("s", "t")+"_2"] = "x"
	got := hashedName("stem", "s", "t", taken)
	if want := "stem_" + hex8("s", "t") + "_3"; got != want {
		t.Errorf("hashedName(stem, s, t) with every hash taken = %q, want %q", got, want)
	}

	long := pattern(63)
	taken = map[string]string{}
	for _, n := range []int{8, 12, 16, 24, 32} {
		taken[long[:62-n]+"_"+hexN("s", "t", n)] = "x"
	}
	for i := 2; i < 120; i++ {
		taken[long[:63-10-len(fmt.Sprint(i))]+"_"+hex8("s", "t")+"_"+fmt.Sprint(i)] = "x"
	}
	got = hashedName(long, "s", "t", taken)
	if want := long[:50] + "_" + hex8("s", "t") + "_120"; got != want || !ValidName(got) {
		t.Errorf("hashedName(long, s, t) = %q, want %q", got, want)
	}
}

func TestHashSplitsServerAndTool(t *testing.T) {
	// Server "ab" tool "c" and server "a" tool "bc" must hash differently.
	x := hashedName("x", "ab", "c", nil)
	y := hashedName("x", "a", "bc", nil)
	if x == y {
		t.Errorf("hashedName(x, ab, c) = hashedName(x, a, bc) = %q, want different", x)
	}
}

// benchTools returns n tool names spread over 10 servers, with about a third
// of each server's names shared with other servers, some needing sanitizing
// and some long enough to be truncated.
func benchTools(n int) servers {
	in := make(servers, 10)
	for i := range n {
		s := i % 10
		in[s].name = fmt.Sprintf("server-%d", s)
		var tool string
		switch i % 3 {
		case 0:
			tool = fmt.Sprintf("shared_%d", i/30) // on every server
		case 1:
			tool = fmt.Sprintf("tool %d:%d", s, i)
		default:
			tool = fmt.Sprintf("a_very_long_tool_name_that_will_be_truncated_%s_%d", pattern(20), i/20)
		}
		in[s].tools = append(in[s].tools, tool)
	}
	return in
}

func benchmarkRegister(b *testing.B, n int) {
	in := benchTools(n)
	order := make([]string, 10)
	for i := range order {
		order[i] = fmt.Sprintf("server-%d", 9-i)
	}
	b.ReportAllocs()
	var r *Registry
	for b.Loop() {
		r = register(order, in)
	}
	if r.Len() != n {
		b.Fatalf("Len() = %d, want %d", r.Len(), n)
	}
}

// BenchmarkRegistry5000 registers 5,000 tools over 10 servers, one
// SetTools per server as discovery does, recomputing all names each time.
func BenchmarkRegistry5000(b *testing.B) { benchmarkRegister(b, 5000) }

func BenchmarkRegistryScaling(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000, 8000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) { benchmarkRegister(b, n) })
	}
}

// BenchmarkSetTools measures one list_changed on a registry of 5,000 tools.
func BenchmarkSetTools(b *testing.B) {
	in := benchTools(5000)
	r := register(nil, in)
	b.ReportAllocs()
	for b.Loop() {
		r.SetTools(in[3].name, in[3].tools)
	}
}

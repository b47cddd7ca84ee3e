package registry_test

import (
	"fmt"

	"github.com/mcpgenai/bridge/registry"
)

func ExampleSanitizeName() {
	for _, name := range []string{
		"myFunction",
		"invalid-name with spaces",
		"namespace:tool",
		"1abc",
		"café",
		"a_tool_name_that_is_much_longer_than_sixty_three_characters_allows_for_gemini",
	} {
		fmt.Println(registry.SanitizeName(name))
	}
	// Output:
	// myFunction
	// invalid-name_with_spaces
	// namespace_tool
	// _1abc
	// caf_
	// a_tool_name_that_is_much_lon___ree_characters_allows_for_gemini
}

func ExampleValidName() {
	fmt.Println(registry.ValidName("get_weather"), registry.ValidName("get weather"), registry.ValidName("2fa"))
	// Output: true false false
}

func ExampleRegistry() {
	reg := registry.New([]string{"files", "web"}, nil) // configuration order
	// Discovery is parallel: web may answer first; names do not depend on it.
	reg.SetTools("web", []string{"fetch", "search"})
	u := reg.SetTools("files", []string{"read", "fetch"})
	for _, c := range u.Changed {
		fmt.Printf("changed: %s -> %s\n", c.Old.Name, c.New.Name)
	}

	for _, e := range reg.Entries() {
		fmt.Printf("%-10s %s/%s (%s)\n", e.Name, e.Server, e.ServerTool, e.Reason)
	}
	e, _ := reg.Lookup("web__fetch")
	fmt.Println("call", e.ServerTool, "on", e.Server)
	// Output:
	// changed: fetch -> web__fetch
	// fetch      files/fetch (unchanged)
	// read       files/read (unchanged)
	// search     web/search (unchanged)
	// web__fetch web/fetch (prefixed)
	// call fetch on web
}

func ExampleRegistry_Renames() {
	reg := registry.New([]string{"a", "b"}, nil)
	reg.SetTools("a", []string{"fetch", "get file"})
	reg.SetTools("b", []string{"fetch"})
	for _, e := range reg.Renames() {
		fmt.Println(e)
	}
	// Output:
	// server "b" tool "fetch" registered as "b__fetch" (prefixed: "fetch" belongs to server "a")
	// server "a" tool "get file" registered as "get_file" (sanitized)
}

func ExampleRegistry_SetTools() {
	reg := registry.New([]string{"a", "b"}, nil)
	reg.SetTools("a", []string{"fetch"})
	reg.SetTools("b", []string{"fetch"})
	// Server a's tools changed (tools/list_changed): its fetch is gone.
	u := reg.SetTools("a", []string{"read"})
	for _, e := range u.Added {
		fmt.Println("added", e.Name)
	}
	for _, e := range u.Removed {
		fmt.Println("removed", e.Name, "of", e.Server)
	}
	for _, c := range u.Changed {
		fmt.Println("renamed", c.Old.Name, "to", c.New.Name)
	}
	// Output:
	// added read
	// removed fetch of a
	// renamed b__fetch to fetch
}

func ExampleEntry_String() {
	reg := registry.New(nil, nil)
	reg.SetTools("s", []string{"a b", "a_b"})
	for _, e := range reg.Renames() {
		fmt.Println(e)
	}
	// Output:
	// server "s" tool "a b" registered as "a_b_dc0e2539" (hashed: "a_b" belongs to server "s")
}

// QualifiedNames names every tool as Gemini CLI does, so its policies and
// allow-lists keep their meaning.
func ExampleQualifiedName() {
	reg := registry.New([]string{"files", "web"}, &registry.Options{Scheme: registry.QualifiedNames})
	reg.SetTools("files", []string{"read", "fetch"})
	reg.SetTools("web", []string{"fetch"})
	for _, e := range reg.Entries() {
		fmt.Println(e.Name, e.Server, e.ServerTool)
	}
	fmt.Println(registry.QualifiedName("my server", "read/file"))
	// Output:
	// mcp_files_fetch files fetch
	// mcp_files_read files read
	// mcp_web_fetch web fetch
	// mcp_my_server_read_file
}

package auth

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeFile: whatever the token file holds, decodeFile returns
// entries or an error, never panics, and what it returns writes back and
// reads again as the same entries.
func FuzzDecodeFile(f *testing.F) {
	f.Add([]byte(`[{"user":"u","server":"https://a/mcp","issuer":"https://as","token":{"accessToken":"x","scopes":["a"]}}]`))
	f.Add([]byte(`{"https://a/mcp":{"accessToken":"x","issuer":"https://as"},"https://b":null}`))
	f.Add([]byte(`[{"server":"s","token":null},null]`))
	f.Add([]byte(`  {}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		all, err := decodeFile(data)
		if err != nil {
			return
		}
		entries := make([]fileEntry, 0, len(all))
		for k, tok := range all {
			if tok == nil {
				t.Fatalf("entry %+v without a token", k)
			}
			entries = append(entries, fileEntry{User: k.User, Server: k.Server, Issuer: k.Issuer, Token: tok})
		}
		out, err := json.Marshal(entries)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := decodeFile(out)
		if err != nil || len(back) != len(all) {
			t.Fatalf("read back %d entries, %v; want %d", len(back), err, len(all))
		}
		for k := range all {
			if back[k] == nil {
				t.Fatalf("entry %+v lost when written back", k)
			}
		}
	})
}

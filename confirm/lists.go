package confirm

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Allow adds k to the allow-list: Key{Server: s} allows every tool of s,
// Key{s, t} the one tool. The deny-list still wins.
func (p *Policy) Allow(k Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.allow == nil {
		p.allow = make(map[Key]bool)
	}
	p.allow[k] = true
}

// Revoke removes k, exactly, from the allow-list: revoking a server key
// leaves that server's tool keys in place.
func (p *Policy) Revoke(k Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.allow, k)
}

// Deny adds k to the deny-list, which wins over trust, the allow-list and
// any answer: a denied call is refused without asking.
func (p *Policy) Deny(k Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.deny == nil {
		p.deny = make(map[Key]bool)
	}
	p.deny[k] = true
}

// AllowList returns the allow-list sorted by Server, then ServerTool (a server's
// own key first). The slice is the caller's.
func (p *Policy) AllowList() []Key {
	p.mu.Lock()
	defer p.mu.Unlock()
	return sortedKeys(p.allow)
}

// DenyList returns the deny-list sorted by Server, then ServerTool. The slice is
// the caller's.
func (p *Policy) DenyList() []Key {
	p.mu.Lock()
	defer p.mu.Unlock()
	return sortedKeys(p.deny)
}

func sortedKeys(m map[Key]bool) []Key {
	keys := make([]Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Key) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.ServerTool, b.ServerTool))
	})
	return keys
}

// fileVersion is the version of the allow-list file format.
const fileVersion = 1

// allowFile is the JSON form of a saved allow-list:
//
//	{
//	  "version": 1,
//	  "allow": [
//	    {"server": "files"},
//	    {"server": "web", "tool": "fetch"}
//	  ]
//	}
type allowFile struct {
	Version int   `json:"version"`
	Allow   []Key `json:"allow"`
}

// Save writes the allow-list to w as indented JSON, keys sorted, so the
// same list always gives the same bytes. The deny-list is configuration
// and is not saved.
func (p *Policy) Save(w io.Writer) error {
	b, err := json.MarshalIndent(allowFile{Version: fileVersion, Allow: p.AllowList()}, "", "  ")
	if err != nil {
		return fmt.Errorf("saving allow-list: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("saving allow-list: %w", err)
	}
	return nil
}

// Load replaces the allow-list with the one saved in r by [Policy.Save].
// The file must be one JSON object with "version": 1 and an "allow" array
// of keys, each naming a server; unknown fields and trailing data are
// errors. On any error the allow-list is left unchanged. The deny-list is
// never changed.
func (p *Policy) Load(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("loading allow-list: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f allowFile
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("loading allow-list: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("loading allow-list: unexpected data after the JSON object")
	}
	if f.Version != fileVersion {
		return fmt.Errorf("loading allow-list: version %d, want %d", f.Version, fileVersion)
	}
	allow := make(map[Key]bool, len(f.Allow))
	for i, k := range f.Allow {
		if k.Server == "" {
			return fmt.Errorf("loading allow-list: entry %d: no server", i)
		}
		allow[k] = true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.allow = allow
	return nil
}

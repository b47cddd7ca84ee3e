package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpgenai/bridge/mcpbridge/internal/clone"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/internal/skills"
)

// Skill is a skill an MCP server offers through the Skills extension
// (io.modelcontextprotocol/skills): a directory of files, a SKILL.md with
// YAML front matter and supporting files, served as resources. The Bridge
// lists skills without reading any of their files; [Bridge.ReadSkill]
// reads one when it is used, and only after checking it against the
// listing. A skill's content is the server's text: untrusted, like its
// tools' output.
type Skill struct {
	// Server is the configured name of the server that offers it. A skill
	// is known by Server and URI together: two servers may offer the same
	// URI, or skills of the same Name.
	Server string `json:"server"`
	// URI is the skill's SKILL.md, to give to [Bridge.ReadSkill].
	URI string `json:"uri"`
	// Name and Description are those of its front matter.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// FrontMatter is its whole front matter as the server listed it (the
	// caller's copy).
	FrontMatter map[string]any `json:"frontMatter,omitempty"`
	// Files are the URIs of its files, SKILL.md included, as listed; nil
	// when the server lists none (a skill it makes on demand, which cannot
	// be checked and so is not read).
	Files []string `json:"files,omitempty"`
}

// ErrSkillVerification is wrapped by the error of [Bridge.ReadSkill] when
// what the server sent is not what its listing promised: a file that is
// not listed for its skill, of another size or SHA-256 digest than
// listed, or a SKILL.md whose front matter differs from the listed one.
// The content is not returned.
var ErrSkillVerification = errors.New("skill verification failed")

// Skills lists the skills of the named server, or of every connected
// server that declared the Skills extension when server is "", in
// configuration order and each server's order (skills/list, page by page).
// It reads no skill's files. A disconnected server is reconnected as for
// a tool call; a server without the extension has none (nothing is
// asked). An entry in a bad shape is skipped and logged. The listing is
// kept for [Bridge.ReadSkill]; a skill already read stays readable as it
// was listed then.
func (b *Bridge) Skills(ctx context.Context, server string) ([]Skill, error) {
	names, err := b.resourceServers(ctx, server)
	if err != nil {
		return nil, err
	}
	var out []Skill
	var errs []error
	for _, name := range names {
		entries, err := b.listSkills(ctx, name)
		if err != nil {
			if server != "" {
				return nil, err
			}
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			out = append(out, skillOf(name, e))
		}
	}
	if len(out) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// skillOf returns the public view of e, offered by server.
func skillOf(server string, e skills.Entry) Skill {
	s := Skill{Server: server, URI: e.URI, Name: e.Name, Description: e.Description}
	s.FrontMatter, _ = clone.JSON(any(e.FrontMatter)).(map[string]any)
	for _, f := range e.Files {
		s.Files = append(s.Files, f.URI)
	}
	return s
}

// listSkills lists the skills of the named server and keeps the entries.
func (b *Bridge) listSkills(ctx context.Context, name string) ([]skills.Entry, error) {
	var raws []json.RawMessage
	var at *server
	err := b.onServerAt(ctx, name, func(ctx context.Context, s *server, conn *mcpconn.Conn) (err error) {
		at = s
		raws, err = conn.ListSkills(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	entries := make([]skills.Entry, 0, len(raws))
	for _, raw := range raws {
		e, err := skills.ParseEntry(raw)
		if err != nil {
			b.log.Warn("mcp server listed a skill mcpbridge cannot use; skipped", "server", name, "err", err)
			continue
		}
		entries = append(entries, e)
	}
	b.mu.Lock()
	at.skills = entries
	b.mu.Unlock()
	return entries, nil
}

// ReadSkill reads one file of a skill of the named server and returns its
// bytes once they are checked against the server's listing (see
// [Bridge.Skills], which is asked first when the server's skills were not
// listed yet). uri is a skill's SKILL.md, which loads the skill: its size,
// SHA-256 digest and YAML front matter must be the listed ones. Or it is
// another file of a skill loaded before, which must be listed for that
// skill, with its size and digest. Files are read only when asked for,
// never ahead. A failed check is an error wrapping [ErrSkillVerification],
// and the content is not returned; a file of a skill not loaded yet is an
// error too.
func (b *Bridge) ReadSkill(ctx context.Context, server, uri string) ([]byte, error) {
	u, err := b.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer b.leave(u)
	e, load, err := b.skillOfFile(ctx, server, uri)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	err = b.onServer(ctx, server, func(ctx context.Context, conn *mcpconn.Conn) (err error) {
		raw, err = conn.ReadResource(ctx, uri)
		return err
	})
	if err != nil {
		return nil, err
	}
	data, err := resourceBytes(raw)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: skill file %q: %w", server, uri, err)
	}
	if err := e.Verify(uri, data); err != nil {
		b.log.Warn("mcp server's skill failed verification; not used", "server", server, "uri", uri, "err", err)
		return nil, b.redact.redactErr(fmt.Errorf("mcp server %q: %w: %w", server, ErrSkillVerification, err))
	}
	if load {
		s := b.serverAt(ctx, server)
		b.mu.Lock()
		if s != nil {
			if s.loadedSkills == nil {
				s.loadedSkills = map[string]skills.Entry{}
			}
			s.loadedSkills[uri] = e
		}
		b.mu.Unlock()
	}
	return data, nil
}

// skillOfFile returns the entry a file of server is checked against, and
// whether reading it loads the skill (uri is its SKILL.md). A skill being
// acted on keeps the entry it was loaded with.
func (b *Bridge) skillOfFile(ctx context.Context, server, uri string) (skills.Entry, bool, error) {
	find := func() (skills.Entry, bool, bool) {
		s := b.serverAt(ctx, server)
		b.mu.Lock()
		defer b.mu.Unlock()
		if s == nil {
			return skills.Entry{}, false, false
		}
		for _, e := range s.loadedSkills {
			if _, ok := e.File(uri); ok && uri != e.URI {
				return e, false, true
			}
		}
		for _, e := range s.skills {
			if e.URI == uri {
				return e, true, true
			}
		}
		return skills.Entry{}, false, s.skills != nil
	}
	e, load, found := find()
	if !found {
		if _, err := b.listSkills(ctx, server); err != nil {
			return skills.Entry{}, false, err
		}
		if e, load, found = find(); !found {
			return skills.Entry{}, false, b.notASkillFile(ctx, server, uri)
		}
	}
	if e.URI == "" {
		return skills.Entry{}, false, b.notASkillFile(ctx, server, uri)
	}
	return e, load, nil
}

// notASkillFile explains a uri that is neither a listed skill's SKILL.md
// nor a file of a loaded skill.
func (b *Bridge) notASkillFile(ctx context.Context, server, uri string) error {
	s := b.serverAt(ctx, server)
	b.mu.Lock()
	defer b.mu.Unlock()
	if s == nil {
		return fmt.Errorf("%w %q", ErrUnknownServer, server)
	}
	for _, e := range s.loadedSkills {
		if strings.HasPrefix(uri, e.Root()+"/") {
			return fmt.Errorf("mcp server %q: %w: %q is not listed among the files of skill %q", server, ErrSkillVerification, uri, e.URI)
		}
	}
	for _, e := range s.skills {
		if _, ok := e.File(uri); ok {
			return fmt.Errorf("mcp server %q: %q is a file of skill %q, which is not loaded: read its SKILL.md first", server, uri, e.URI)
		}
	}
	return fmt.Errorf("mcp server %q: %q is no skill's SKILL.md nor a file of a loaded skill", server, uri)
}

// resourceBytes returns the bytes of the first content of a resources/read
// result: its text, or its blob decoded; at most skills.MaxFile bytes.
func resourceBytes(raw json.RawMessage) ([]byte, error) {
	var res struct {
		Contents []struct {
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("decoding resources/read result: %w", err)
	}
	if len(res.Contents) != 1 {
		return nil, fmt.Errorf("resources/read gave %d contents, want 1", len(res.Contents))
	}
	c := res.Contents[0]
	var data []byte
	switch {
	case c.Text != nil:
		data = []byte(*c.Text)
	case c.Blob != nil:
		var err error
		if data, err = result.DecodeBase64(*c.Blob); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("resources/read gave neither text nor blob")
	}
	if len(data) > skills.MaxFile {
		return nil, fmt.Errorf("%d bytes, over %d", len(data), skills.MaxFile)
	}
	return data, nil
}

// readSkillTool is the built-in tool through which the model lists,
// loads and reads skills (see [Options.ResourceTools]).
const readSkillTool = "read_mcp_skill"

// readSkillResult answers read_mcp_skill: with no skill, the list of
// skills; with a skill (its name or URI), its SKILL.md, loading it; with a
// file too, that file of the loaded skill, by its path in the skill.
func (b *Bridge) readSkillResult(ctx context.Context, server, skill, file string) (json.RawMessage, error) {
	all, err := b.Skills(ctx, server)
	if err != nil {
		return nil, err
	}
	if skill == "" {
		type listed struct {
			Server      string `json:"server"`
			Name        string `json:"name"`
			Description string `json:"description,omitempty"`
			URI         string `json:"uri"`
		}
		out := make([]listed, 0, len(all))
		for _, s := range all {
			out = append(out, listed{s.Server, s.Name, s.Description, s.URI})
		}
		return textResult(map[string]any{"skills": out})
	}
	var match []Skill
	for _, s := range all {
		if s.URI == skill || s.Name == skill {
			match = append(match, s)
		}
	}
	switch {
	case len(match) == 0:
		return nil, fmt.Errorf("no skill %q; list them by calling %s without a skill", skill, readSkillTool)
	case len(match) > 1:
		var where []string
		for _, s := range match {
			where = append(where, fmt.Sprintf("%s (server %s)", s.URI, s.Server))
		}
		return nil, fmt.Errorf("several skills are named %q: %s; give the server, or the skill's URI", skill, strings.Join(where, ", "))
	}
	s := match[0]
	e := skills.Entry{URI: s.URI}
	uri := s.URI
	if file != "" {
		if uri, err = e.Resolve(file); err != nil {
			return nil, err
		}
	}
	data, err := b.ReadSkill(ctx, s.Server, uri)
	if err != nil {
		return nil, err
	}
	if file != "" {
		if !utf8.Valid(data) {
			return textResult(map[string]any{"file": uri, "server": s.Server, "bytes": len(data), "note": "binary content, not shown"})
		}
		return textResult(map[string]any{"file": uri, "server": s.Server, "content": string(data)})
	}
	var files []string
	for _, f := range s.Files {
		if rel, ok := strings.CutPrefix(f, e.Root()+"/"); ok && f != s.URI {
			files = append(files, rel)
		}
	}
	slices.Sort(files)
	return textResult(map[string]any{
		"skill": s.Name, "server": s.Server, "uri": s.URI,
		"note":  "Loaded from MCP server " + s.Server + ". Its other files, by path relative to the skill's directory, are read with " + readSkillTool + " and file.",
		"files": files, "content": string(data),
	})
}

// textResult is a CallToolResult holding v as JSON text.
func textResult(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(b)}}})
}

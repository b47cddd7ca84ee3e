package mcpbridge

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// skillsBridge serves a skill with the given tampering and returns a
// Bridge connected to it, and the server's record.
func skillsBridge(t *testing.T, tamper string, opts *Options) (*Bridge, *testserver.Skills) {
	t.Helper()
	sk := &testserver.Skills{Tamper: tamper}
	srv := testserver.ServeHTTP(t, testserver.Options{Era: testserver.EraModern, Skills: sk, Tools: 1}, false)
	b := newBridge(t, opts, ServerConfig{Name: "docs", HTTPURL: srv.URL, Trust: true, Timeout: 10 * time.Second})
	discover(t, b)
	return b, sk
}

// TestSkills: a server's skills are listed without reading any file;
// reading a skill's SKILL.md loads it once it matches the listing, and
// only then may its other files be read, each checked too.
func TestSkills(t *testing.T) {
	b, sk := skillsBridge(t, "", nil)
	ctx := t.Context()
	got, err := b.Skills(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []Skill{{Server: "docs", URI: testserver.SkillURI, Name: "pdf-processing", Description: "Extract, fill, and assemble PDF documents",
		FrontMatter: map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
		Files:       []string{testserver.SkillURI, testserver.SkillForms}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Skills (-want +got):\n%s", diff)
	}
	if r := sk.Reads(); len(r) != 0 {
		t.Errorf("files read after listing: %q, want none", r)
	}
	if _, err := b.ReadSkill(ctx, "docs", testserver.SkillForms); err == nil || !strings.Contains(err.Error(), "not loaded") {
		t.Errorf("reading FORMS.md before the skill is loaded: %v, want an error saying so", err)
	}
	md, err := b.ReadSkill(ctx, "docs", testserver.SkillURI)
	if err != nil || !strings.Contains(string(md), "name: pdf-processing") {
		t.Fatalf("ReadSkill(SKILL.md) = %q, %v", md, err)
	}
	forms, err := b.ReadSkill(ctx, "docs", testserver.SkillForms)
	if err != nil || string(forms) != "Form fields: name, date.\n" {
		t.Errorf("ReadSkill(FORMS.md) = %q, %v", forms, err)
	}
	if _, err := b.ReadSkill(ctx, "docs", "skill://pdf-processing/secret.md"); !errors.Is(err, ErrSkillVerification) {
		t.Errorf("reading an unlisted file of the loaded skill: %v, want ErrSkillVerification", err)
	}
	if diff := cmp.Diff([]string{testserver.SkillURI, testserver.SkillForms}, sk.Reads()); diff != "" {
		t.Errorf("files read (-want +got):\n%s", diff)
	}
}

// TestSkillVerification: a SKILL.md whose digest, size or front matter is
// not the listed one is refused with ErrSkillVerification, its content is
// not returned, and the skill stays unloaded: its other files are not read.
func TestSkillVerification(t *testing.T) {
	for _, tamper := range []string{"digest", "size", "frontmatter"} {
		t.Run(tamper, func(t *testing.T) {
			b, sk := skillsBridge(t, tamper, nil)
			ctx := t.Context()
			md, err := b.ReadSkill(ctx, "docs", testserver.SkillURI)
			if !errors.Is(err, ErrSkillVerification) || md != nil {
				t.Fatalf("ReadSkill(SKILL.md) = %q, %v; want no content and ErrSkillVerification", md, err)
			}
			if _, err := b.ReadSkill(ctx, "docs", testserver.SkillForms); err == nil {
				t.Errorf("reading FORMS.md of the refused skill succeeded")
			}
			if diff := cmp.Diff([]string{testserver.SkillURI}, sk.Reads()); diff != "" {
				t.Errorf("files read (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSkillTool: with ResourceTools, the model lists skills, loads one by
// name and reads its file by relative path through read_mcp_skill; a
// tampered skill is an error the model reads.
func TestSkillTool(t *testing.T) {
	b, _ := skillsBridge(t, "", &Options{ResourceTools: true, Policy: &confirm.Policy{AutoAllowReadOnly: true}})
	run := func(args map[string]any) *CallResult {
		t.Helper()
		return b.Execute(t.Context(), &genai.FunctionCall{Name: readSkillTool, Args: args})
	}
	if r := run(map[string]any{}); r.Err != nil || !strings.Contains(r.ReturnDisplay, "pdf-processing") {
		t.Fatalf("listing: %v %q", r.Err, r.ReturnDisplay)
	}
	r := run(map[string]any{"skill": "pdf-processing"})
	if r.Err != nil || !strings.Contains(r.ReturnDisplay, "references/FORMS.md") || !strings.Contains(r.ReturnDisplay, "Fill the forms") {
		t.Fatalf("loading: %v %q", r.Err, r.ReturnDisplay)
	}
	r = run(map[string]any{"skill": "pdf-processing", "file": "references/FORMS.md"})
	if r.Err != nil || !strings.Contains(r.ReturnDisplay, "Form fields") {
		t.Errorf("reading a file: %v %q", r.Err, r.ReturnDisplay)
	}
	if r := run(map[string]any{"skill": "pdf-processing", "file": "../other/SKILL.md"}); r.Err == nil {
		t.Errorf("a path out of the skill was read: %q", r.ReturnDisplay)
	}

	bad, _ := skillsBridge(t, "digest", &Options{ResourceTools: true, Policy: &confirm.Policy{AutoAllowReadOnly: true}})
	r = bad.Execute(t.Context(), &genai.FunctionCall{Name: readSkillTool, Args: map[string]any{"skill": "pdf-processing"}})
	if r.Err == nil || strings.Contains(r.ReturnDisplay, "Mail the forms") {
		t.Errorf("a tampered skill: err %v, display %q; want an error without its content", r.Err, r.ReturnDisplay)
	}
}

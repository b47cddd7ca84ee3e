package tasks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseCreated(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		ok   bool
		want Task
		err  error
	}{
		{name: "a result", raw: `{"content":[{"type":"text","text":"task"}]}`},
		{name: "not an object", raw: `"task"`},
		{name: "task null", raw: `{"content":[],"task":null}`},
		{name: "legacy", raw: `{"task":{"taskId":"t1","status":"working","statusMessage":"started","createdAt":"x","ttl":60000,"pollInterval":500}}`,
			ok: true, want: Task{ID: "t1", Status: Working, Message: "started", TTL: time.Minute, HasTTL: true, PollInterval: 500 * time.Millisecond}},
		{name: "legacy without ttl", raw: `{"task":{"taskId":"t1","status":"working","ttl":null}}`,
			ok: true, want: Task{ID: "t1", Status: Working}},
		{name: "modern", raw: `{"resultType":"task","taskId":"t2","status":"working","ttlMs":0,"pollIntervalMs":5000}`,
			ok: true, want: Task{ID: "t2", Status: Working, HasTTL: true, PollInterval: 5 * time.Second}},
		{name: "modern completed", raw: `{"resultType":"task","taskId":"t2","status":"completed","ttlMs":null,"result":{"content":[]}}`,
			ok: true, want: Task{ID: "t2", Status: Completed, Result: json.RawMessage(`{"content":[]}`)}},
		{name: "complete result type", raw: `{"resultType":"complete","task":{"taskId":"x","status":"working"},"content":[]}`},
		{name: "no id", raw: `{"task":{"status":"working"}}`, ok: true, err: ErrMalformed},
		{name: "numeric id", raw: `{"task":{"taskId":7,"status":"working"}}`, ok: true, err: ErrMalformed},
		{name: "unknown status", raw: `{"task":{"taskId":"t","status":"sleeping"}}`, ok: true, err: ErrMalformed},
		{name: "huge id", raw: `{"task":{"taskId":"` + strings.Repeat("a", MaxIDBytes+1) + `","status":"working"}}`, ok: true, err: ErrMalformed},
		{name: "absurd numbers", raw: `{"task":{"taskId":"t","status":"working","ttl":-1,"pollInterval":1e300}}`,
			ok: true, want: Task{ID: "t", Status: Working}},
		{name: "wrong types", raw: `{"task":{"taskId":"t","status":"working","ttl":"60","statusMessage":3}}`,
			ok: true, want: Task{ID: "t", Status: Working}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := ParseCreated(json.RawMessage(tt.raw))
			if ok != tt.ok || !errors.Is(err, tt.err) {
				t.Fatalf("ParseCreated(%s) = ok %v, err %v; want ok %v, err %v", tt.raw, ok, err, tt.ok, tt.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseCreated(%s) (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

// TestParseExtension: on 2026-07-28 only resultType "task" makes a task.
func TestParseExtension(t *testing.T) {
	for raw, wantOK := range map[string]bool{
		`{"task":{"taskId":"t1","status":"working"}}`:                                     false,
		`{"resultType":"complete","content":[],"task":{"taskId":"t","status":"working"}}`: false,
		`{"resultType":"task","taskId":"t2","status":"working","ttlMs":null}`:             true,
		`{"content":[{"type":"text","text":"task"}]}`:                                     false,
	} {
		got, ok, err := ParseExtension(json.RawMessage(raw))
		if ok != wantOK || err != nil || (ok && got.ID != "t2") {
			t.Errorf("ParseExtension(%s) = %+v, ok %v, %v; want ok %v", raw, got, ok, err, wantOK)
		}
	}
}

func TestParseCutsMessage(t *testing.T) {
	msg := strings.Repeat("é", MaxMessageBytes)
	raw, _ := json.Marshal(map[string]any{"taskId": "t", "status": "working", "statusMessage": msg})
	got, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Message) > MaxMessageBytes+len("…") || !utf8.ValidString(got.Message) {
		t.Errorf("Parse kept a message of %d bytes (valid UTF-8: %v), want at most %d", len(got.Message), utf8.ValidString(got.Message), MaxMessageBytes)
	}
}

// FuzzParse checks that any bytes give a task or an error, never a panic,
// and that a task read has an id and a known status within bounds.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"task":{"taskId":"t1","status":"working","ttl":60000,"pollInterval":500}}`))
	f.Add([]byte(`{"resultType":"task","taskId":"t2","status":"completed","result":{"content":[]}}`))
	f.Add([]byte(`{"taskId":"t","status":"input_required","inputRequests":{"a":{}}}`))
	f.Add([]byte(`{"task":{"taskId":"","status":"x"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, parse := range []func(json.RawMessage) (Task, bool, error){
			ParseCreated,
			ParseExtension,
			func(r json.RawMessage) (Task, bool, error) { t, err := Parse(r); return t, true, err },
		} {
			got, ok, err := parse(raw)
			if err != nil || !ok {
				continue
			}
			if got.ID == "" || len(got.ID) > MaxIDBytes {
				t.Fatalf("task id %q out of bounds", got.ID)
			}
			switch got.Status {
			case Working, InputRequired, Completed, Failed, Cancelled:
			default:
				t.Fatalf("unknown status %q accepted", got.Status)
			}
			if got.TTL < 0 || got.PollInterval < 0 {
				t.Fatalf("negative duration: ttl %v, poll %v", got.TTL, got.PollInterval)
			}
			if len(got.Message) > MaxMessageBytes+len("…") {
				t.Fatalf("message of %d bytes", len(got.Message))
			}
		}
	})
}

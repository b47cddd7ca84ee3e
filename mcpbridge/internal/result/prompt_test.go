package result

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestPromptContents(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    []*genai.Content
		wantErr bool
	}{
		{"image and link", `{"messages":[{"role":"user","content":{"type":"image","mimeType":"image/png","data":"AAE="}},{"role":"assistant","content":{"type":"resource_link","uri":"u://x","name":"x"}}]}`,
			[]*genai.Content{
				{Role: genai.RoleUser, Parts: []*genai.Part{{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{0, 1}}}}},
				{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Resource Link: x at u://x"}}},
			}, false},
		{"unknown content type is a note", `{"messages":[{"role":"user","content":{"type":"hologram"}}]}`,
			[]*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: `[content of unknown type "hologram" dropped]`}}}}, false},
		{"no messages", `{}`, []*genai.Content{}, false},
		{"unknown role", `{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}`, nil, true},
		{"not an object", `[]`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PromptContents([]byte(tc.raw))
			if (err != nil) != tc.wantErr {
				t.Fatalf("PromptContents(%s) error = %v, want error %v", tc.raw, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PromptContents(%s) (-want +got):\n%s", tc.raw, diff)
			}
		})
	}
}

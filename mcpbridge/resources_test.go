package mcpbridge

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

func TestResources(t *testing.T) {
	for _, tr := range []Transport{TransportSSE, TransportHTTP} {
		t.Run(string(tr), func(t *testing.T) {
			b := newBridge(t, nil, serverFor(t, "res", tr, testserver.Options{Blob: true}))
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, err := b.ListResources(ctx, "res")
			if err != nil {
				t.Fatalf("ListResources(res) = %v", err)
			}
			want := []Resource{
				{URI: "test://blob", Name: "blob", MIMEType: "image/png"},
				{URI: "test://hello", Name: "hello", MIMEType: "text/plain"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ListResources(res) (-want +got):\n%s", diff)
			}
			for _, tc := range []struct {
				uri  string
				want []*genai.Part
			}{
				{"test://hello", []*genai.Part{genai.NewPartFromText("hello world")}},
				{"test://blob", []*genai.Part{genai.NewPartFromBytes([]byte("\x89PNG\r\n"), "image/png")}},
			} {
				parts, err := b.ReadResource(ctx, "res", tc.uri)
				if err != nil {
					t.Errorf("ReadResource(%s) = %v", tc.uri, err)
					continue
				}
				if diff := cmp.Diff(tc.want, parts); diff != "" {
					t.Errorf("ReadResource(%s) (-want +got):\n%s", tc.uri, diff)
				}
			}
			if _, err := b.ReadResource(ctx, "res", "test://missing"); err == nil {
				t.Error("ReadResource(test://missing) = nil error, want the server's error")
			}
			if _, err := b.ListResources(ctx, "nobody"); !errors.Is(err, ErrUnknownServer) {
				t.Errorf("ListResources(nobody) = %v, want ErrUnknownServer", err)
			}
		})
	}
}

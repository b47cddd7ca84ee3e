package sampling_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpgenai/bridge/geminitest"
	isampling "github.com/mcpgenai/bridge/mcpbridge/internal/sampling"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// BenchmarkSampling measures a sampling request of the whole conversation
// (three messages, two tools, a tool round) answered through Handle by
// Gemini on geminitest ("handle"), beside the same generateContent call
// made directly ("direct"): the ratio is the cost of decoding, checking,
// converting and encoding around the model's round trip.
func BenchmarkSampling(b *testing.B) {
	params := json.RawMessage(conversation)
	req, _, err := isampling.Parse(params)
	if err != nil {
		b.Fatal(err)
	}
	req.Model = "gemini-2.5-flash"
	turns := func(n int) []geminitest.Turn {
		out := make([]geminitest.Turn, n)
		for i := range out {
			out[i] = geminitest.Text("Fine.")
		}
		return out
	}
	b.Run("direct", func(b *testing.B) {
		srv := geminitest.New(b, nil, turns(b.N+1)...)
		models := srv.Client(context.Background()).Models
		call, err := sampling.ToGemini(req)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := models.GenerateContent(context.Background(), req.Model, call.Contents(), call.Config()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handle", func(b *testing.B) {
		srv := geminitest.New(b, nil, turns(b.N+1)...)
		h := isampling.NewHandler(isampling.Config{Sampler: sampling.Gemini(srv.Client(context.Background()).Models, "gemini-2.5-flash")})
		defer h.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := h.Handle(context.Background(), "s", "", "sampling/createMessage", params); err != nil {
				b.Fatal(err)
			}
		}
	})
}

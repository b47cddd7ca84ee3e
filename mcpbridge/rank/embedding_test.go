package rank_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/rank"
)

// TestEmbedding: tools are ranked by the similarity of their embeddings to
// the query's, the query embedded as RETRIEVAL_QUERY and the tools as
// RETRIEVAL_DOCUMENT; tool texts and queries are embedded once.
func TestEmbedding(t *testing.T) {
	ctx := context.Background()
	srv := geminitest.New(t, nil)
	e := rank.NewEmbedding(srv.Client(ctx).Models, &rank.EmbeddingOptions{Dimensions: 256})
	d := docs(
		rank.Tool{Name: "get_weather", Description: "weather forecast for a city"},
		rank.Tool{Name: "convert_currency", Description: "convert an amount of money"},
		rank.Tool{Name: "send_email", Description: "send an email message"},
	)
	r, err := e.Rank(ctx, rank.Query{Text: "weather forecast for Oslo"}, d)
	if err != nil {
		t.Fatalf("Rank() error = %v", err)
	}
	if r.Entries[0].Name != "get_weather" || r.Entries[0].Score <= r.Entries[1].Score {
		t.Errorf("Rank() = %+v, want get_weather first", r.Entries)
	}
	reqs := srv.EmbedRequests()
	if len(reqs) != 2 || len(reqs[0].Items) != 1 || reqs[0].Items[0].TaskType != "RETRIEVAL_QUERY" ||
		len(reqs[1].Items) != 3 || reqs[1].Items[0].TaskType != "RETRIEVAL_DOCUMENT" || reqs[1].Items[0].Dimensions != 256 {
		t.Fatalf("EmbedRequests() = %+v, want the query, then the three tools", reqs)
	}
	if reqs[1].Items[0].Text != d[0].Text() || reqs[0].Model != rank.DefaultEmbeddingModel {
		t.Errorf("embedded %q with %s, want %q with %s", reqs[1].Items[0].Text, reqs[0].Model, d[0].Text(), rank.DefaultEmbeddingModel)
	}

	// Again, with one tool more: only the new tool is embedded.
	d = append(d, rank.NewDocument(rank.Tool{Name: "get_time", Description: "current time"}))
	if _, err := e.Rank(ctx, rank.Query{Text: "weather forecast for Oslo"}, d); err != nil {
		t.Fatalf("Rank() error = %v", err)
	}
	reqs = srv.EmbedRequests()
	if len(reqs) != 3 || len(reqs[2].Items) != 1 || reqs[2].Items[0].Text != d[3].Text() {
		t.Errorf("EmbedRequests() after a second Rank = %+v, want one more request for get_time alone", reqs)
	}
}

// TestEmbeddingBatches: more texts than a batch holds are embedded in
// several requests; two documents of the same text are embedded once.
func TestEmbeddingBatches(t *testing.T) {
	ctx := context.Background()
	srv := geminitest.New(t, nil)
	e := rank.NewEmbedding(srv.Client(ctx).Models, &rank.EmbeddingOptions{Dimensions: 8, BatchSize: 100})
	var tools []rank.Tool
	for i := range 150 {
		tools = append(tools, rank.Tool{Name: fmt.Sprintf("tool_%d", i)})
	}
	tools = append(tools, rank.Tool{Name: "tool_0"})
	if _, err := e.Rank(ctx, rank.Query{Text: "tool 7"}, docs(tools...)); err != nil {
		t.Fatalf("Rank() error = %v", err)
	}
	var sizes []int
	for _, r := range srv.EmbedRequests() {
		sizes = append(sizes, len(r.Items))
	}
	if fmt.Sprint(sizes) != "[1 100 50]" {
		t.Errorf("requests of %v texts, want [1 100 50]", sizes)
	}
}

// TestEmbeddingCache: the cache keeps at most CacheSize embeddings, the
// least recently used leaving first.
func TestEmbeddingCache(t *testing.T) {
	ctx := context.Background()
	srv := geminitest.New(t, nil)
	e := rank.NewEmbedding(srv.Client(ctx).Models, &rank.EmbeddingOptions{Dimensions: 8, CacheSize: 2})
	a, b := docs(rank.Tool{Name: "a"}), docs(rank.Tool{Name: "b"})
	count := func() int { return len(srv.EmbedRequests()) }
	for _, step := range []struct {
		d     []*rank.Document
		calls int // requests this Rank makes
	}{
		{a, 2}, // the query and a: cache [a, q]
		{a, 0}, // both cached
		{b, 1}, // b: cache [b, q], a left
		{a, 1}, // a again: cache [a, q]
	} {
		before := count()
		if _, err := e.Rank(ctx, rank.Query{Text: "q"}, step.d); err != nil {
			t.Fatalf("Rank() error = %v", err)
		}
		if got := count() - before; got != step.calls {
			t.Errorf("Rank(%s) made %d requests, want %d", step.d[0].Name(), got, step.calls)
		}
	}
}

// TestEmbeddingEmptyQuery: a query without text ranks every tool at 0
// without a call; the last context text is used when Text is empty.
func TestEmbeddingEmptyQuery(t *testing.T) {
	ctx := context.Background()
	srv := geminitest.New(t, nil)
	e := rank.NewEmbedding(srv.Client(ctx).Models, &rank.EmbeddingOptions{Dimensions: 8})
	r, err := e.Rank(ctx, rank.Query{}, docs(rank.Tool{Name: "a"}))
	if err != nil || r.Matched != 0 || len(srv.EmbedRequests()) != 0 {
		t.Errorf("Rank(empty) = %+v, %v after %d requests, want nothing matched and no request", r, err, len(srv.EmbedRequests()))
	}
	if _, err := e.Rank(ctx, rank.Query{Context: []string{"old", "newer"}}, docs(rank.Tool{Name: "a"})); err != nil {
		t.Fatal(err)
	}
	if reqs := srv.EmbedRequests(); len(reqs) == 0 || reqs[0].Items[0].Text != "newer" {
		t.Errorf("EmbedRequests() = %+v, want the last context text embedded", reqs)
	}
}

// TestEmbeddingErrors: an API error fails Rank with the API's error; so
// does an answer with the wrong number of embeddings.
func TestEmbeddingErrors(t *testing.T) {
	ctx := context.Background()
	srv := geminitest.New(t, &geminitest.Options{APIKey: "right"})
	cfg := srv.ClientConfig()
	cfg.APIKey = "wrong"
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rank.NewEmbedding(client.Models, nil).Rank(ctx, rank.Query{Text: "q"}, docs(rank.Tool{Name: "a"}))
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 400 {
		t.Errorf("Rank() with a wrong key error = %v, want the API's 400", err)
	}
	_, err = rank.NewEmbedding(shortEmbedder{}, nil).Rank(ctx, rank.Query{Text: "q"}, docs(rank.Tool{Name: "a"}))
	if err == nil {
		t.Errorf("Rank() with an embedder that answers nothing = nil error")
	}
}

type shortEmbedder struct{}

func (shortEmbedder) EmbedContent(context.Context, string, []*genai.Content, *genai.EmbedContentConfig) (*genai.EmbedContentResponse, error) {
	return &genai.EmbedContentResponse{}, nil
}

// TestEmbeddingConcurrent: Rank is safe for concurrent use (run with
// -race).
func TestEmbeddingConcurrent(t *testing.T) {
	ctx := context.Background()
	srv := geminitest.New(t, nil)
	e := rank.NewEmbedding(srv.Client(ctx).Models, &rank.EmbeddingOptions{Dimensions: 8, CacheSize: 3})
	d := docs(rank.Tool{Name: "a"}, rank.Tool{Name: "b"}, rank.Tool{Name: "c"})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := e.Rank(ctx, rank.Query{Text: fmt.Sprint("q", i%3)}, d); err != nil {
				t.Errorf("Rank() error = %v", err)
			}
		})
	}
	wg.Wait()
}

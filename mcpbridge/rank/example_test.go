package rank_test

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/rank"
	"github.com/mcpgenai/bridge/registry"
)

func ExampleLexical() {
	tools := []*rank.Document{
		rank.NewDocument(rank.Tool{Name: "get_weather", Server: "weather", Description: "Current weather and forecast for a city."}),
		rank.NewDocument(rank.Tool{Name: "exchange_rate", Server: "fx", Description: "Exchange rates between currencies."}),
		rank.NewDocument(rank.Tool{Name: "list_directory", Server: "files", Description: "Lists a directory."}),
	}
	for _, q := range []string{"How many yen for 20 EUR?", "明日の大阪の天気は？", "zeppelins"} {
		r, _ := rank.Lexical{}.Rank(context.Background(), rank.Query{Text: q}, tools)
		best := r.Entries[0]
		fmt.Printf("%s -> %s (place %d, tied: %v, %d matched)\n", q, best.Name, best.Place, r.Tied(0), r.Matched)
	}
	// Output:
	// How many yen for 20 EUR? -> exchange_rate (place 1, tied: false, 1 matched)
	// 明日の大阪の天気は？ -> get_weather (place 1, tied: false, 1 matched)
	// zeppelins -> get_weather (place 1, tied: true, 0 matched)
}

func ExampleEmbedding() {
	ctx := context.Background()
	srv := geminitest.New(nil, nil) // a fake Gemini API serving deterministic embeddings
	defer srv.Close()
	client := srv.Client(ctx)

	ranker := rank.NewEmbedding(client.Models, &rank.EmbeddingOptions{Dimensions: 256})
	tools := []*rank.Document{
		rank.NewDocument(rank.Tool{Name: "get_weather", Description: "Current weather and forecast for a city."}),
		rank.NewDocument(rank.Tool{Name: "exchange_rate", Description: "Exchange rates between currencies."}),
	}
	r, err := ranker.Rank(ctx, rank.Query{Text: "the weather forecast for a city"}, tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Entries[0].Name, len(srv.EmbedRequests()), "requests")
	// Output: get_weather 2 requests
}

func ExampleFuse() {
	ctx := context.Background()
	srv := geminitest.New(nil, nil)
	defer srv.Close()
	tools := []*rank.Document{
		rank.NewDocument(rank.Tool{Name: "get_weather", Description: "Current weather and forecast for a city."}),
		rank.NewDocument(rank.Tool{Name: "exchange_rate", Description: "Exchange rates between currencies."}),
	}
	q := rank.Query{Text: "is it going to rain in Oslo"}
	lexical, _ := rank.Lexical{}.Rank(ctx, q, tools)
	embedding, err := rank.NewEmbedding(srv.Client(ctx).Models, nil).Rank(ctx, q, tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rank.Fuse(lexical, embedding).Entries[0].Name)
	// Output: get_weather
}

// selectionRanker makes a rank.Ranker the Ranker of a Bridge's Selection:
// it ranks each tool's cached RankDocument for the conversation.
type selectionRanker struct{ r rank.Ranker }

func (s selectionRanker) Rank(ctx context.Context, conversation []*genai.Content, tools []*mcpbridge.Tool) ([]float64, error) {
	docs := make([]*rank.Document, len(tools))
	for i, t := range tools {
		docs[i] = t.RankDocument()
	}
	r, err := s.r.Rank(ctx, rank.ConversationQuery(conversation), docs)
	if err != nil {
		return nil, err
	}
	return r.Scores(), nil
}

// A host that wants meanings in its Bridge's selection gives it an
// Embedding ranker (here the built-in one, to stay offline).
func ExampleNewRanking_selection() {
	var sel mcpbridge.Selection
	sel.Ranker = selectionRanker{rank.Lexical{}} // or rank.NewEmbedding(client.Models, nil)
	tools := []*mcpbridge.Tool{
		{Entry: registry.Entry{Name: "get_weather", Server: "weather"}, Description: "Current weather for a city."},
		{Entry: registry.Entry{Name: "send_email", Server: "mail"}, Description: "Sends an email."},
	}
	conv := []*genai.Content{genai.NewContentFromText("Will it snow in Oslo?", genai.RoleUser)}
	scores, _ := sel.Ranker.Rank(context.Background(), conv, tools)
	fmt.Println(scores[0] > scores[1])
	// Output: true
}

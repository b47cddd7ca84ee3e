package rank_test

import (
	"context"
	"fmt"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/rank"
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

// A host's own ranker reports its scores as a Ranking, which can then be
// fused with the built-in one's. (Any Ranker can be an mcpbridge
// Selection's Ranker.)
func ExampleNewRanking() {
	tools := []*rank.Document{
		rank.NewDocument(rank.Tool{Name: "get_weather"}),
		rank.NewDocument(rank.Tool{Name: "send_email"}),
		rank.NewDocument(rank.Tool{Name: "get_time"}),
	}
	favourites := map[string]float64{"send_email": 2, "get_time": 2} // the host's own signal
	scores := make([]float64, len(tools))
	for i, d := range tools {
		scores[i] = favourites[d.Name()]
	}
	r := rank.NewRanking(tools, scores)
	for _, e := range r.Entries {
		fmt.Println(e.Place, e.Name, e.Score)
	}
	fmt.Println(r.Matched, "matched")
	// Output:
	// 1 send_email 2
	// 1 get_time 2
	// 3 get_weather 0
	// 2 matched
}

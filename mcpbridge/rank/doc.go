// Package rank orders tools by how well they fit a request: the ranker a
// Bridge's selection uses when a request cannot carry every tool (and its
// tool search, for the model's queries), public
// so that a host can run it itself, beside its own, or instead of it.
//
// A tool is read once into a [Document] (its name, title, description,
// server, input schema and hints); a [Ranker] ranks documents for a
// [Query] (the words looked for, and earlier text of the conversation) and
// reports a [Ranking]: every document with its score and place, ties
// sharing a place, and how many matched at all, so that a choice among
// tools that matched nothing is seen as one.
//
//	docs := []*rank.Document{
//		rank.NewDocument(rank.Tool{Name: "get_weather", Description: "Current weather for a city."}),
//		rank.NewDocument(rank.Tool{Name: "exchange_rate", Description: "Exchange rates between currencies."}),
//	}
//	r, _ := rank.Lexical{}.Rank(ctx, rank.Query{Text: "明日の天気は？"}, docs)
//	fmt.Println(r.Entries[0].Name) // get_weather
//
// Two rankers come with the package:
//   - [Lexical], the built-in one: offline, without a model, in well under
//     a millisecond for hundreds of tools. It matches words, their
//     inflections, and the words of a built-in lexicon of what tools do in
//     English, Japanese, Chinese and Korean ("forecast" finds "weather",
//     "EUR" finds "currency", 天気 finds "weather").
//   - [Embedding], on Gemini's embedding API: it compares meanings, at the
//     cost of API calls (tool texts are embedded once and cached).
//
// [Fuse] combines the rankings of several rankers; [NewRanking] turns a
// host's own scores into a Ranking. The mcpbridge package gives every tool
// its Document (mcpbridge.Tool.RankDocument).
//
// How well the rankers find the tools a request needs is measured on the
// public benchmark LiveMCPBench and on requests of our own, in four
// languages: see the repository's BENCHMARKS.md.
package rank

package rank

import (
	"container/list"
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"google.golang.org/genai"
)

// DefaultEmbeddingModel is the model an [Embedding] ranker uses when its
// options name none.
const DefaultEmbeddingModel = "gemini-embedding-001"

// Defaults of [EmbeddingOptions].
const (
	defaultDimensions = 768
	defaultCacheSize  = 4096
	defaultBatchSize  = 100 // the most contents the Developer API embeds in one call
	// maxEmbedText is the most bytes of a text sent to be embedded: about
	// the 2,048 tokens gemini-embedding-001 reads.
	maxEmbedText = 8 << 10
)

// ContentEmbedder embeds contents: genai's client.Models is one.
type ContentEmbedder interface {
	EmbedContent(ctx context.Context, model string, contents []*genai.Content, config *genai.EmbedContentConfig) (*genai.EmbedContentResponse, error)
}

// EmbeddingOptions configures an [Embedding] ranker. The zero value uses
// the defaults each field states.
type EmbeddingOptions struct {
	// Model is the embedding model; "" means [DefaultEmbeddingModel].
	Model string
	// Dimensions is the output dimensionality asked of the model; 0 or
	// less means 768.
	Dimensions int
	// CacheSize is how many embeddings of tool texts and queries are
	// kept, the least recently used leaving first; 0 or less means 4,096.
	CacheSize int
	// BatchSize is the most texts embedded in one call; 0 or less means
	// 100, the Developer API's limit. On Vertex AI, models other than
	// gemini-embedding-001 embed one text a call: set 1.
	BatchSize int
}

// Embedding ranks tools by meaning rather than by words: the cosine
// similarity between the embedding of the query (task type
// RETRIEVAL_QUERY) and that of each tool's text ([Document.Text], task
// type RETRIEVAL_DOCUMENT), from Gemini's embedding API. Tool texts are
// embedded once and cached by their text, so a request costs one call for
// the query when every tool is cached (and queries are cached too); the
// first request embeds every tool, in batches. It needs the network and
// costs API calls: the built-in [Lexical] is the offline alternative, and
// the two can be combined (see [Fuse]).
//
// An Embedding is safe for concurrent use. Two requests missing the same
// text at once may both embed it.
type Embedding struct {
	models    ContentEmbedder
	model     string
	dims      int32
	batchSize int

	mu    sync.Mutex
	cache *lru
}

// NewEmbedding returns an Embedding ranker that embeds with models
// (client.Models of a genai.Client). If opts is nil, the default options
// are used. It calls nothing until the first Rank.
func NewEmbedding(models ContentEmbedder, opts *EmbeddingOptions) *Embedding {
	var o EmbeddingOptions
	if opts != nil {
		o = *opts
	}
	if o.Model == "" {
		o.Model = DefaultEmbeddingModel
	}
	if o.Dimensions <= 0 {
		o.Dimensions = defaultDimensions
	}
	if o.CacheSize <= 0 {
		o.CacheSize = defaultCacheSize
	}
	if o.BatchSize <= 0 {
		o.BatchSize = defaultBatchSize
	}
	return &Embedding{models: models, model: o.Model, dims: int32(min(o.Dimensions, math.MaxInt32)),
		batchSize: o.BatchSize, cache: newLRU(o.CacheSize)}
}

// Rank implements [Ranker]. The query embedded is q.Text, or, when it is
// empty, the last of q.Context; a query with neither ranks every document
// at 0 without a call. A score is the cosine similarity, 0 when it is
// negative. Rank fails when the API does: nothing is ranked then.
func (e *Embedding) Rank(ctx context.Context, q Query, docs []*Document) (*Ranking, error) {
	text := q.Text
	if text == "" && len(q.Context) > 0 {
		text = q.Context[len(q.Context)-1]
	}
	scores := make([]float64, len(docs))
	if text == "" {
		return NewRanking(docs, scores), nil
	}
	texts := make([]string, len(docs))
	for i, d := range docs {
		if d != nil {
			texts[i] = d.text
		}
	}
	qv, err := e.embed(ctx, []string{text}, "RETRIEVAL_QUERY")
	if err != nil {
		return nil, fmt.Errorf("rank: embedding the query: %w", err)
	}
	dv, err := e.embed(ctx, texts, "RETRIEVAL_DOCUMENT")
	if err != nil {
		return nil, fmt.Errorf("rank: embedding tool texts: %w", err)
	}
	for i, v := range dv {
		if v == nil {
			continue
		}
		if len(v) != len(qv[0]) {
			return nil, fmt.Errorf("rank: the query's embedding has %d values, a tool's %d", len(qv[0]), len(v))
		}
		scores[i] = max(cosine(qv[0], v), 0)
	}
	return NewRanking(docs, scores), nil
}

// embed returns the embeddings of texts for taskType, from the cache or
// the API (the missing ones, in batches); an empty text gets nil.
func (e *Embedding) embed(ctx context.Context, texts []string, taskType string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([][32]byte, len(texts))
	var missing []int // indexes of texts to embed, one per distinct key
	first := map[[32]byte]int{}
	e.mu.Lock()
	for i, t := range texts {
		if t == "" {
			continue
		}
		keys[i] = sha256.Sum256([]byte(taskType + "\x00" + t))
		if v, ok := e.cache.get(keys[i]); ok {
			out[i] = v
			continue
		}
		if _, ok := first[keys[i]]; !ok {
			first[keys[i]] = i
			missing = append(missing, i)
		}
	}
	e.mu.Unlock()
	dims := e.dims
	config := &genai.EmbedContentConfig{TaskType: taskType, OutputDimensionality: &dims}
	for start := 0; start < len(missing); start += e.batchSize {
		batch := missing[start:min(start+e.batchSize, len(missing))]
		contents := make([]*genai.Content, len(batch))
		for j, i := range batch {
			contents[j] = genai.NewContentFromText(truncate(texts[i], maxEmbedText), genai.RoleUser)
		}
		resp, err := e.models.EmbedContent(ctx, e.model, contents, config)
		if err != nil {
			return nil, err
		}
		if resp == nil || len(resp.Embeddings) != len(batch) {
			n := 0
			if resp != nil {
				n = len(resp.Embeddings)
			}
			return nil, fmt.Errorf("%d embeddings for %d texts", n, len(batch))
		}
		e.mu.Lock()
		for j, i := range batch {
			var v []float32
			if emb := resp.Embeddings[j]; emb != nil {
				v = emb.Values
			}
			if len(v) == 0 {
				e.mu.Unlock()
				return nil, fmt.Errorf("an empty embedding for text %d", i)
			}
			e.cache.put(keys[i], v)
			out[i] = v
		}
		e.mu.Unlock()
	}
	for i := range texts {
		if out[i] == nil && texts[i] != "" {
			out[i] = out[first[keys[i]]]
		}
	}
	return out, nil
}

// truncate cuts s to at most n bytes, at a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cosine is the cosine similarity of a and b (of one length), 0 when
// either is zero.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// lru is a cache of embeddings by key, of a bounded number of entries; the
// least recently used leaves first. It is not safe for concurrent use.
type lru struct {
	size  int
	order *list.List // of *lruEntry, most recent first
	byKey map[[32]byte]*list.Element
}

type lruEntry struct {
	key [32]byte
	v   []float32
}

func newLRU(size int) *lru {
	return &lru{size: size, order: list.New(), byKey: map[[32]byte]*list.Element{}}
}

func (c *lru) get(k [32]byte) ([]float32, bool) {
	el, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry).v, true
}

func (c *lru) put(k [32]byte, v []float32) {
	if el, ok := c.byKey[k]; ok {
		el.Value.(*lruEntry).v = v
		c.order.MoveToFront(el)
		return
	}
	c.byKey[k] = c.order.PushFront(&lruEntry{k, v})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*lruEntry).key)
	}
}

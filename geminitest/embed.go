package geminitest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"reflect"
	"strings"
	"unicode"
)

// The embedding endpoints of the Developer API: batchEmbedContents (what
// genai's Models.EmbedContent calls, one request per content) and
// embedContent (one content).

// maxEmbedBatch is the most requests one batchEmbedContents takes; the API
// answers more with a 400.
const maxEmbedBatch = 100

// maxEmbedDimensions is the largest output dimensionality, and the
// dimensionality of an embedding when the request sets none (that of
// gemini-embedding-001).
const maxEmbedDimensions = 3072

// EmbedRequest is one embedding request received by the [Server].
type EmbedRequest struct {
	// Model is the model named in the URL, without the "models/" prefix.
	Model string
	// Batch reports whether the request was batchEmbedContents (rather
	// than embedContent).
	Batch bool
	// Items holds what each content asked for, in order.
	Items []EmbedItem
	// Body is the raw request body, byte for byte.
	Body []byte
	// Rejection is the error message the server answered with, "" when it
	// answered with embeddings.
	Rejection string
}

// EmbedItem is one content of an [EmbedRequest].
type EmbedItem struct {
	// Text is the content's text: its parts' texts, joined by newlines.
	Text string
	// TaskType is the request's task type ("RETRIEVAL_QUERY",
	// "RETRIEVAL_DOCUMENT", ...), "" when unset.
	TaskType string
	// Title is the request's title, "" when unset.
	Title string
	// Dimensions is the request's output dimensionality, 0 when unset.
	Dimensions int
}

// EmbedRequests returns every embedding request answered so far, accepted
// or rejected, in the order they were answered. The values are copies.
func (s *Server) EmbedRequests() []EmbedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]EmbedRequest, len(s.embeds))
	for i, r := range s.embeds {
		out[i] = *r
		out[i].Items = append([]EmbedItem(nil), r.Items...)
	}
	return out
}

// wireBatchEmbedContentsRequest is the body of batchEmbedContents.
type wireBatchEmbedContentsRequest struct {
	Requests []*wireEmbedContentRequest `json:"requests"`
}

// wireEmbedContentRequest is one content to embed: the body of
// embedContent, and each request of a batch.
type wireEmbedContentRequest struct {
	Model                string       `json:"model,omitempty"`
	Content              *wireContent `json:"content,omitempty"`
	TaskType             wireTaskType `json:"taskType,omitempty"`
	Title                string       `json:"title,omitempty"`
	OutputDimensionality *int32       `json:"outputDimensionality,omitempty"`
}

// wireTaskType is an embedding's task type. The decoder accepts any letter
// case and stores upper case.
type wireTaskType string

// isEmbedMethod reports whether method is one of the embedding methods.
func isEmbedMethod(method string) bool {
	return method == "batchEmbedContents" || method == "embedContent"
}

// serveEmbed answers batchEmbedContents and embedContent: the body is
// decoded as strictly as a generateContent body, checked as the API checks
// it, and answered with one embedding per content from [Options.Embed].
func (s *Server) serveEmbed(w http.ResponseWriter, r *http.Request, model, method string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	req := &EmbedRequest{Model: model, Batch: method == "batchEmbedContents", Body: body}
	reject := func(code int, msg string) {
		req.Rejection = msg
		s.recordEmbed(req)
		if s.t != nil {
			s.t.Logf("geminitest: answered %d: %s", code, msg)
		}
		writeError(w, code, msg)
	}
	if err != nil {
		reject(http.StatusBadRequest, fmt.Sprintf("geminitest: reading request body: %v", err))
		return
	}
	if s.opts.VertexAI {
		reject(http.StatusNotFound, fmt.Sprintf("geminitest: %s is served on the Developer API only", method))
		return
	}
	if code, msg := s.authorize(r); code != 0 {
		reject(code, msg)
		return
	}
	var items []*wireEmbedContentRequest
	prefix := "EmbedContentRequest"
	if req.Batch {
		var batch wireBatchEmbedContentsRequest
		if errs := decodeMessage(body, &batch); len(errs) > 0 {
			reject(http.StatusBadRequest, strings.Join(errs, "\n"))
			return
		}
		items = batch.Requests
		prefix = "BatchEmbedContentsRequest"
	} else {
		var one wireEmbedContentRequest
		if errs := decodeMessage(body, &one); len(errs) > 0 {
			reject(http.StatusBadRequest, strings.Join(errs, "\n"))
			return
		}
		items = []*wireEmbedContentRequest{&one}
	}
	if msgs := checkEmbed(items, model, req.Batch, prefix); len(msgs) > 0 {
		reject(http.StatusBadRequest, strings.Join(msgs, "\n"))
		return
	}
	embed := s.opts.Embed
	if embed == nil {
		embed = HashEmbedding
	}
	type wireEmbedding struct {
		Values []float32 `json:"values"`
	}
	out := make([]wireEmbedding, len(items))
	for i, it := range items {
		item := EmbedItem{Text: embedText(it.Content), TaskType: string(it.TaskType), Title: it.Title}
		if it.OutputDimensionality != nil {
			item.Dimensions = int(*it.OutputDimensionality)
		}
		req.Items = append(req.Items, item)
		dims := item.Dimensions
		if dims == 0 {
			dims = maxEmbedDimensions
		}
		v := embed(item.Text, item.TaskType, dims)
		if len(v) != dims {
			reject(http.StatusInternalServerError, fmt.Sprintf("geminitest: Options.Embed returned %d values for %d dimensions", len(v), dims))
			return
		}
		out[i].Values = v
	}
	s.recordEmbed(req)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if req.Batch {
		_ = json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
	} else {
		_ = json.NewEncoder(w).Encode(map[string]any{"embedding": out[0]})
	}
}

// decodeMessage decodes body into msg with the strict decoder.
func decodeMessage(body []byte, msg any) []string {
	root, err := parseJSON(body)
	if err != nil {
		return []string{"Invalid JSON payload received. " + jsonSyntaxMessage(err)}
	}
	if root.kind != jsonObject {
		return []string{fmt.Sprintf("Invalid JSON payload received. Expected an object, got %s.", root)}
	}
	d := &decoder{}
	d.message(root, reflect.ValueOf(msg).Elem(), "")
	return d.errs
}

// checkEmbed returns what the API would reject in the decoded contents of
// a request for model: at most 100 contents in a batch; each request of a
// batch naming the batch's model; a content with parts, and text in
// them; a title only for RETRIEVAL_DOCUMENT; a dimensionality from 1 to
// 3072.
func checkEmbed(items []*wireEmbedContentRequest, model string, batch bool, prefix string) []string {
	var msgs []string
	if batch && len(items) == 0 {
		msgs = append(msgs, "* BatchEmbedContentsRequest.requests: must have at least one request")
	}
	if len(items) > maxEmbedBatch {
		return append(msgs, fmt.Sprintf("* BatchEmbedContentsRequest.requests: at most %d requests can be in one batch", maxEmbedBatch))
	}
	for i, it := range items {
		path := prefix
		if batch {
			path = fmt.Sprintf("%s.requests[%d]", prefix, i)
		}
		if it == nil {
			msgs = append(msgs, fmt.Sprintf("* %s: the request is empty", path))
			continue
		}
		if batch && it.Model != "models/"+model {
			msgs = append(msgs, fmt.Sprintf("* %s.model: must be the model of the batch, %q (got %q)", path, "models/"+model, it.Model))
		}
		switch {
		case it.Content == nil || len(it.Content.Parts) == 0:
			msgs = append(msgs, fmt.Sprintf("* %s.content.parts: contents.parts must not be empty", path))
		case embedText(it.Content) == "":
			msgs = append(msgs, fmt.Sprintf("* %s.content: contains an empty Part", path))
		}
		if it.Title != "" && it.TaskType != "RETRIEVAL_DOCUMENT" {
			msgs = append(msgs, fmt.Sprintf("* %s.title: a title is only for the task type RETRIEVAL_DOCUMENT", path))
		}
		if d := it.OutputDimensionality; d != nil && (*d <= 0 || *d > maxEmbedDimensions) {
			msgs = append(msgs, fmt.Sprintf("* %s.output_dimensionality: must be from 1 to %d, got %d", path, maxEmbedDimensions, *d))
		}
	}
	return msgs
}

// embedText joins the texts of c's parts by newlines (only text counts).
func embedText(c *wireContent) string {
	if c == nil {
		return ""
	}
	var texts []string
	for _, p := range c.Parts {
		if p != nil && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// recordEmbed adds req to the recorded embedding requests.
func (s *Server) recordEmbed(req *EmbedRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embeds = append(s.embeds, req)
}

// HashEmbedding is the Server's embedding when [Options.Embed] is nil: a
// deterministic vector of dims values in which every word of text (a run
// of letters and digits, lower-cased; each CJK character on its own) adds
// ±1 at a place chosen by its hash, scaled to length 1. Texts that share
// words are near one another (their cosine similarity is the share of
// words they have in common, roughly); it knows no meanings, and taskType
// does not change it. A text without words gets a fixed unit vector.
func HashEmbedding(text, taskType string, dims int) []float32 {
	v := make([]float32, dims)
	if dims <= 0 {
		return v
	}
	add := func(word string) {
		h := fnv.New64a()
		h.Write([]byte(word))
		x := h.Sum64()
		sign := float32(1)
		if x&1 == 1 {
			sign = -1
		}
		v[(x>>1)%uint64(dims)] += sign
	}
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			add(word.String())
			word.Reset()
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			add(string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	norm := 0.0
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		v[0] = 1
		return v
	}
	scale := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= scale
	}
	return v
}

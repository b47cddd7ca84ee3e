// Package genaienv creates the examples' genai client from the environment
// alone, as genai documents it, so that genai's own variables
// (GEMINI_API_KEY, GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL,
// GOOGLE_GENAI_USE_VERTEXAI, ...) are honoured the same way by every
// example program.
package genaienv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"google.golang.org/genai"
)

// NewClient returns a genai client configured from the environment. Without
// Vertex AI selected (GOOGLE_GENAI_USE_VERTEXAI or
// GOOGLE_GENAI_USE_ENTERPRISE set to 1 or true) and without GEMINI_API_KEY
// or GOOGLE_API_KEY, it returns an error that names both variables and ends
// with hint, the program's own advice ("" for none). Every error is one
// line: genai's own messages, which can span lines and print the
// configuration, are cut to their first sentence.
func NewClient(ctx context.Context, hint string) (*genai.Client, error) {
	vertex := false
	for _, v := range []string{"GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE"} {
		switch strings.ToLower(os.Getenv(v)) {
		case "1", "true":
			vertex = true
		}
	}
	if !vertex && os.Getenv("GEMINI_API_KEY") == "" && os.Getenv("GOOGLE_API_KEY") == "" {
		return nil, errors.New("no API key: set GEMINI_API_KEY or GOOGLE_API_KEY" + hint)
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{})
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		msg, _, _ = strings.Cut(msg, " ClientConfig:")
		return nil, fmt.Errorf("creating the genai client: %s", msg)
	}
	return client, nil
}

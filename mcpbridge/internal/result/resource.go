package result

import (
	"encoding/json"
	"fmt"

	"google.golang.org/genai"
)

// ResourceParts converts the raw JSON of an MCP resources/read result into
// parts, one per content in order: text as a text part, a blob (decoded by
// [DecodeBase64]) as inline data with its MIME type
// (application/octet-stream when missing). A content with neither, a blob
// that does not decode, or raw that is not such a result is an error. raw
// is not retained.
func ResourceParts(raw []byte) ([]*genai.Part, error) {
	var res struct {
		Contents []struct {
			MIMEType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("decoding result: %w", err)
	}
	parts := make([]*genai.Part, 0, len(res.Contents))
	for i, c := range res.Contents {
		switch {
		case c.Text != nil:
			parts = append(parts, genai.NewPartFromText(*c.Text))
		case c.Blob != nil:
			data, err := DecodeBase64(*c.Blob)
			if err != nil {
				return nil, fmt.Errorf("contents[%d]: blob: %w", i, err)
			}
			mime := c.MIMEType
			if mime == "" {
				mime = octetStream
			}
			parts = append(parts, genai.NewPartFromBytes(data, mime))
		default:
			return nil, fmt.Errorf("contents[%d]: neither text nor blob", i)
		}
	}
	return parts, nil
}

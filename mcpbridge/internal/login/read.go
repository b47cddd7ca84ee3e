package login

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mcpgenai/bridge/mcpbridge/internal/egress"
)

// readBody reads a response body of the authorization server. The login's
// HTTP client (egress.LoginClient) already bounds it at egress.MaxBody,
// failing with an error wrapping egress.ErrBodyTooLarge; the limit here
// keeps the read bounded with any client.
func readBody(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, egress.MaxBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > egress.MaxBody {
		return nil, fmt.Errorf("%w: over %d KiB", egress.ErrBodyTooLarge, egress.MaxBody>>10)
	}
	return body, nil
}

// oauthError describes an error answer of the authorization server: its
// HTTP status, and the OAuth error code and description (RFC 6749 section
// 5.2) or the start of the body, cut short.
func oauthError(status int, body []byte) error {
	var e struct {
		Code        string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) == nil && e.Code != "" {
		if e.Description == "" {
			return fmt.Errorf("authorization server answered status %d: %s", status, short(e.Code))
		}
		return fmt.Errorf("authorization server answered status %d: %s: %s", status, short(e.Code), short(e.Description))
	}
	if text := short(string(body)); text != "" {
		return fmt.Errorf("authorization server answered status %d: %s", status, text)
	}
	return fmt.Errorf("authorization server answered status %d", status)
}

// short returns s as valid UTF-8 on one line, at most 200 bytes.
func short(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	if len(s) <= 200 {
		return s
	}
	cut := 200
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

package egress

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// MaxChallenge bounds the WWW-Authenticate header of a 401, all its values
// together, in bytes; MaxScopes bounds the scopes one challenge may ask
// for. Real challenges are a few hundred bytes with a handful of scopes.
const (
	MaxChallenge = 8 << 10
	MaxScopes    = 100
)

// ErrChallengeTooLarge is the error of a WWW-Authenticate header over
// [MaxChallenge] bytes or asking for more than [MaxScopes] scopes.
var ErrChallengeTooLarge = errors.New("WWW-Authenticate challenge too large")

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110
// section 11.6.1): a scheme and its parameters, or its token68.
type Challenge struct {
	Scheme  string            // as sent; compare with strings.EqualFold
	Params  map[string]string // lower-case names; the first of repeated names wins
	Token68 string
}

// ParseChallenges returns the challenges of the WWW-Authenticate values
// of h, in order. It fails with [ErrChallengeTooLarge] when the values
// together exceed [MaxChallenge] bytes; malformed text ends the value it
// is in, keeping what was read before it.
func ParseChallenges(h http.Header) ([]Challenge, error) {
	values := h.Values("WWW-Authenticate")
	n := 0
	for _, v := range values {
		n += len(v)
	}
	if n > MaxChallenge {
		return nil, fmt.Errorf("%w: %d bytes, over %d KiB", ErrChallengeTooLarge, n, MaxChallenge>>10)
	}
	var out []Challenge
	for _, v := range values {
		out = append(out, parseValue(v)...)
	}
	return out, nil
}

// Scopes returns the scopes of the first Bearer or DPoP challenge of h
// that names any, split at spaces; nil when none does. It fails with
// [ErrChallengeTooLarge] for a header over [MaxChallenge] bytes or a scope
// list of more than [MaxScopes] scopes.
func Scopes(h http.Header) ([]string, error) {
	cs, err := ParseChallenges(h)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if !strings.EqualFold(c.Scheme, "Bearer") && !strings.EqualFold(c.Scheme, "DPoP") {
			continue
		}
		s, ok := c.Params["scope"]
		if !ok {
			continue
		}
		scopes := strings.Fields(s)
		if len(scopes) > MaxScopes {
			return nil, fmt.Errorf("%w: %d scopes, over %d", ErrChallengeTooLarge, len(scopes), MaxScopes)
		}
		return scopes, nil
	}
	return nil, nil
}

// parseValue parses one header value, which may hold several challenges.
func parseValue(v string) []Challenge {
	p := &parser{s: v}
	var out []Challenge
	for {
		p.skip(" \t,")
		scheme := p.token()
		if scheme == "" {
			return out // the end, or text that is no challenge
		}
		c := Challenge{Scheme: scheme}
		p.skip(" \t")
		if t, ok := p.token68(); ok {
			c.Token68 = t
		} else {
			c.Params = p.params()
		}
		out = append(out, c)
	}
}

type parser struct {
	s   string
	pos int
}

func (p *parser) skip(set string) {
	for p.pos < len(p.s) && strings.IndexByte(set, p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *parser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

// token reads an RFC 9110 token.
func (p *parser) token() string {
	start := p.pos
	for p.pos < len(p.s) && isTchar(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// token68 reads a token68 that stands alone (followed by the end or a
// comma); otherwise it reads nothing.
func (p *parser) token68() (string, bool) {
	start := p.pos
	for p.pos < len(p.s) && (isTchar(p.s[p.pos]) && p.s[p.pos] != '=' || strings.IndexByte("-._~+/", p.s[p.pos]) >= 0) {
		p.pos++
	}
	if p.pos == start {
		return "", false
	}
	for p.pos < len(p.s) && p.s[p.pos] == '=' {
		p.pos++
	}
	end := p.pos
	p.skip(" \t")
	if p.pos == len(p.s) || p.peek() == ',' {
		return p.s[start:end], true
	}
	p.pos = start
	return "", false
}

// params reads auth-params up to the next challenge or the end.
func (p *parser) params() map[string]string {
	params := map[string]string{}
	for {
		p.skip(" \t,")
		start := p.pos
		name := p.token()
		p.skip(" \t")
		if name == "" || p.peek() != '=' {
			p.pos = start // the next challenge's scheme, or junk
			if name == "" {
				p.pos = len(p.s)
			}
			return params
		}
		p.pos++
		p.skip(" \t")
		var val string
		if p.peek() == '"' {
			var ok bool
			if val, ok = p.quoted(); !ok {
				p.pos = len(p.s)
				return params
			}
		} else {
			val = p.token()
		}
		key := strings.ToLower(name)
		if _, dup := params[key]; !dup {
			params[key] = val
		}
		p.skip(" \t")
		if p.pos < len(p.s) && p.peek() != ',' {
			p.pos = len(p.s) // junk after a value
			return params
		}
	}
}

// quoted reads a quoted-string at p.pos, undoing its escapes.
func (p *parser) quoted() (string, bool) {
	var b strings.Builder
	for i := p.pos + 1; i < len(p.s); i++ {
		switch c := p.s[i]; c {
		case '"':
			p.pos = i + 1
			return b.String(), true
		case '\\':
			if i+1 == len(p.s) {
				return "", false
			}
			i++
			b.WriteByte(p.s[i])
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// isTchar reports whether c may appear in an RFC 9110 token.
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

package secrets

// Text and URLs for people: credentials found by their shape (URL
// credentials, secret-looking parameters, tokens, "name: value" and
// "name=value" pairs whose name looks secret).

import (
	"net/url"
	"regexp"
	"strings"
)

// URL returns raw with its user information replaced by [Redacted] and the
// values of query and fragment parameters replaced by [Redacted] when
// their names look secret (token, key, api_key, access_token, secret,
// password, auth, sig, signature, code ...) or their values may be
// credentials (see [New]). Everything else, including the order of
// parameters, is kept as written; configured secrets anywhere in raw are
// replaced too.
func (r *Redactor) URL(raw string) string {
	return r.ReplaceConfigured(redactURL(raw))
}

func redactURL(raw string) string {
	if scheme, after, ok := strings.Cut(raw, "://"); ok {
		if at := userinfoEnd(after); at >= 0 {
			raw = scheme + "://" + Redacted + after[at:]
		}
	}
	rest, frag, hasFrag := strings.Cut(raw, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery {
		rest += "?" + redactParams(query)
	}
	if hasFrag {
		rest += "#" + redactParams(frag)
	}
	return rest
}

// redactParams redacts the values of secret-looking names in a&b=c form.
func redactParams(s string) string {
	parts := strings.Split(s, "&")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		value := p[strings.IndexByte(p, '=')+1:]
		if v, err := url.QueryUnescape(value); err == nil {
			value = v
		}
		if secretParam(name) || mayBeSecret(value) {
			parts[i] = p[:strings.IndexByte(p, '=')] + "=" + Redacted
		}
	}
	return strings.Join(parts, "&")
}

// secretParam reports whether a URL query or fragment parameter name looks
// secret: by the rule of [ChildEnv], or as sig, signature, code, pwd, otp,
// a session ID (sid, sessionid, PHPSESSID, JSESSIONID ...) or a single word
// ending in "key" (authkey, accesskey, appkey; not monkey or hockey).
func secretParam(name string) bool {
	lower := strings.ToLower(name)
	switch lower {
	case "sig", "signature", "code", "pwd", "passwd", "x-amz-signature", "sid", "ssid", "otp":
		return true
	}
	if strings.Contains(lower, "session") || strings.Contains(lower, "sessid") {
		return true
	}
	if strings.HasSuffix(lower, "key") && !keyWords[lower] {
		return true
	}
	return secretName(name)
}

// keyWords are words ending in "key" that name no key.
var keyWords = map[string]bool{"monkey": true, "turkey": true, "hockey": true, "jockey": true, "donkey": true, "whiskey": true, "hotkey": true}

var (
	urlPattern    = regexp.MustCompile("\\b[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]+")
	schemePattern = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}`)
	// jsonPattern is a quoted name, a colon and a quoted value, as in JSON
	// or a Python dict.
	jsonPattern = regexp.MustCompile(`"([^"\\]{1,100})"(\s*:\s*)"((?:[^"\\]|\\.)*)"|'([^'\\]{1,100})'(\s*:\s*)'((?:[^'\\]|\\.)*)'`)
	// quotedPattern is NAME='value' or NAME="value".
	quotedPattern = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_.-]*)=(?:'([^']*)'|"([^"]*)")`)
	assignPattern = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_-]*)=([^\s&"',;]+)`)
	// colonPattern is "Name: value", as in a header line or YAML.
	colonPattern = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_.-]*):[ \t]+([^\s"',;]+)`)
	// dsnPattern is the password in user:password@tcp(host) and
	// user:password@host:port, as in Go's database DSNs.
	dsnPattern  = regexp.MustCompile(`\b([A-Za-z0-9_.%+-]+):([^\s@/:"'()]+)@((?:tcp|udp|unix)\(|[A-Za-z0-9.-]+:[0-9]+\b)`)
	jwtPattern  = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)
	wordPattern = regexp.MustCompile(`[A-Za-z0-9_-]{11,}`)
)

// Text returns s with secrets replaced by [Redacted]: configured secrets of
// at least 4 characters, URLs of any scheme (as by [Redactor.URL]), and in
// the text around them
//
//   - credentials after "Bearer " and "Basic ";
//   - values whose names look secret in name=value, name='value',
//     name="value", "name": "value" (JSON), 'name': 'value' and
//     "Name: value" (a header line, YAML; a plain lowercase word counts
//     only when it is password, passwd or secret, since Go errors chain
//     words with ": ");
//   - the password in a DSN such as user:password@tcp(host) or
//     user:password@host:5432;
//   - JSON Web Tokens and words shaped like well-known tokens ("ghp_...",
//     "AKIA...", "sk_live_...").
//
// Use it for error messages and stderr.
func (r *Redactor) Text(s string) string {
	s = r.ReplaceConfigured(s)
	// URLs are redacted by their own rules and the text between them by
	// the rules for prose, never both: a URL's query value may hold
	// characters (",", "#") that end a name=value in prose, and redacting
	// one span by both rules would not be idempotent.
	// Each pattern runs only where the text holds what a match needs (a
	// literal it cannot match without): most text holds few of them, and
	// Go's regexp scans every position of a text that cannot match.
	var out string
	if !strings.Contains(s, "://") {
		out = redactProse(s)
	} else {
		var b strings.Builder
		last := 0
		for _, loc := range urlPattern.FindAllStringIndex(s, -1) {
			b.WriteString(redactProse(s[last:loc[0]]))
			b.WriteString(redactURL(s[loc[0]:loc[1]]))
			last = loc[1]
		}
		b.WriteString(redactProse(s[last:]))
		out = b.String()
	}
	if strings.Contains(out, "eyJ") {
		out = jwtPattern.ReplaceAllString(out, Redacted)
	}
	return replaceWords(out)
}

// replaceWords replaces each run of at least 11 characters of
// [A-Za-z0-9_-] (wordPattern) for which secretValue holds by [Redacted].
func replaceWords(s string) string {
	var b strings.Builder
	last, start := 0, -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && wordByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= 11 && secretValue(s[start:i]) {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:start])
			b.WriteString(Redacted)
			last = i
		}
		start = -1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// colonName reports whether "name: value" in prose names a secret. Go error
// messages chain lowercase words with ": " ("google credentials: not
// found"), so a plain lowercase word counts only when it is unmistakable
// (password, passwd, secret); names with '_', '-' or capitals (api_key,
// X-Api-Key, Authorization) count whenever they look secret.
func colonName(name string) bool {
	if !secretName(name) && !secretHeader(name) {
		return false
	}
	if strings.ContainsAny(name, "_-") || strings.ToLower(name) != name {
		return true
	}
	switch name {
	case "password", "passwd", "secret":
		return true
	}
	return false
}

// redactProse applies the rules for text outside URLs: credentials after an
// authorization scheme, DSN passwords, and values of secret-looking names.
func redactProse(s string) string {
	// The guards are literals each pattern needs (see Text); "b" and "B"
	// are the only folds of the first letter of bearer and basic.
	if strings.ContainsAny(s, "bB") {
		s = schemePattern.ReplaceAllString(s, "$1 "+Redacted)
	}
	if strings.Contains(s, "@") {
		s = dsnPattern.ReplaceAllString(s, "$1:"+Redacted+"@$3")
	}
	if strings.Contains(s, ":") {
		s = redactQuotedPairs(s)
	}
	if strings.Contains(s, "=") {
		s = redactAssignments(s)
	}
	if strings.Contains(s, ": ") || strings.Contains(s, ":\t") {
		s = redactColons(s)
	}
	return s
}

// redactQuotedPairs redacts the values of secret names in "name": "value"
// and 'name': 'value'.
func redactQuotedPairs(s string) string {
	return jsonPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := jsonPattern.FindStringSubmatch(m)
		name, sep, q := sub[1], sub[2], `"`
		if sub[4] != "" {
			name, sep, q = sub[4], sub[5], "'"
		}
		if secretName(name) || secretHeader(name) {
			return q + name + q + sep + q + Redacted + q
		}
		return m
	})
}

// redactAssignments redacts the values of secret names in name='value',
// name="value" and name=value.
func redactAssignments(s string) string {
	if strings.Contains(s, "='") || strings.Contains(s, `="`) {
		s = quotedPattern.ReplaceAllStringFunc(s, func(m string) string {
			name, rest, _ := strings.Cut(m, "=")
			if secretName(name) {
				return name + "=" + rest[:1] + Redacted + rest[:1]
			}
			return m
		})
	}
	return assignPattern.ReplaceAllStringFunc(s, func(m string) string {
		name, _, _ := strings.Cut(m, "=")
		if secretName(name) {
			return name + "=" + Redacted
		}
		return m
	})
}

// redactColons redacts the values of secret names in "Name: value".
func redactColons(s string) string {
	return colonPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := colonPattern.FindStringSubmatch(m)
		name, value := sub[1], sub[2]
		if colonName(name) && !authSchemes[strings.ToLower(value)] {
			return m[:len(m)-len(value)] + Redacted
		}
		return m
	})
}

// Package secrets knows what is secret in a server's configuration and
// hides it: the [Redactor] replaces credentials in text meant for people
// (errors, logs, status, stderr, command lines, URLs), and [ChildEnv]
// withholds secret-looking variables from a server's environment. The rules
// err on the side of hiding: a false alarm costs a "***" in a message, a
// miss leaks a credential.
package secrets

import (
	"cmp"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces every secret in a [Redactor]'s output.
const Redacted = "***"

// Redactor hides the secrets of one or more server configurations in text
// meant for people: the status, error messages, stderr. A nil *Redactor knows no
// configured secrets but still applies the generic rules. A Redactor is
// immutable and safe for concurrent use; every method is idempotent.
type Redactor struct {
	secrets []string // longest first (see bySize)
	// probe replaces every secret of at least minSecretLen bytes in one
	// pass: it tells text that holds none (the usual case) at the cost of
	// one scan, however many secrets there are. nil when there are none.
	probe *strings.Replacer
	// anchors finds which secrets a text holds (see occurring), built
	// the first time one does.
	anchors func() map[uint32][]anchor
	// parts, when set, are the Redactors whose secrets this one knows
	// (see stack); secrets and probe are then unset.
	parts []*Redactor
}

// authSchemes are the Authorization schemes whose credential is also
// redacted on its own.
var authSchemes = map[string]bool{"bearer": true, "basic": true, "token": true, "bot": true, "apikey": true}

// minSecretLen is the shortest configured secret replaced inside longer
// text; shorter ones are only replaced where a whole argument equals them.
const minSecretLen = 4

// Config is what a [Redactor] learns its secrets from: one server's
// configuration. The zero Config holds no secret.
type Config struct {
	// Env is the environment configured for the server.
	Env map[string]string
	// Headers are the HTTP headers configured for the server.
	Headers map[string]string
	// URLs are the server's endpoints; "" entries are skipped.
	URLs []string
	// Command is the server's command; some of its flags (redis-cli's -a,
	// mysql's -pPASSWORD) depend on it.
	Command string
	// Args are the server's command-line arguments.
	Args []string
	// ClientSecret is the OAuth client secret, if any.
	ClientSecret string
	// Secrets are values that are secret whatever their shape, such as
	// the values of environment variables expanded into the configuration
	// (see [Expanded]).
	Secrets []string
}

// New returns a Redactor that knows the secrets in cfg:
//
//   - every env and header value that may be a credential (see below), and
//     the credential after a scheme such as "Bearer " or "Basic " in it;
//   - the password and the query values that may be credentials of every
//     URL among those values and of cfg.URLs;
//   - the argument after a secret-looking flag (see [Redactor.CommandLine]);
//   - the OAuth client secret, if any;
//   - every value in cfg.Secrets.
//
// A value may be a credential when its name looks secret (by the rule of
// [ChildEnv], plus Authorization, Proxy-Authorization and Cookie), when its
// shape does (a well-known token prefix, a private key), or when it is at
// least 8 characters long, holds both letters and digits and no space, and
// is neither a path nor a URL; "production", "8080", "/usr/local/bin" and
// "us-east" are not credentials, "us-central1" is. cfg is not retained.
func New(cfg Config) *Redactor {
	var secrets []string
	add := func(name, value string, secretByName bool) {
		if value == "" {
			return
		}
		if strings.Contains(value, "://") && !secretByName {
			secrets = append(secrets, urlSecrets(value)...)
			return
		}
		if secretByName || mayBeSecret(value) {
			secrets = append(secrets, value)
			if scheme, cred, ok := strings.Cut(value, " "); ok && authSchemes[strings.ToLower(scheme)] {
				secrets = append(secrets, strings.TrimSpace(cred))
			}
		}
		secrets = append(secrets, urlSecrets(value)...)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Env)) {
		add(name, cfg.Env[name], secretName(name))
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Headers)) {
		add(name, cfg.Headers[name], secretHeader(name))
	}
	add("clientSecret", cfg.ClientSecret, true)
	for _, ep := range cfg.URLs {
		secrets = append(secrets, urlSecrets(ep)...)
	}
	for i, a := range cfg.Args {
		if _, secret, ok := argValue(cfg.Command, a); ok {
			secrets = append(secrets, secret)
		}
		if i+1 < len(cfg.Args) {
			if _, secret, ok := flagValue(cfg.Command, a, cfg.Args[i+1]); ok {
				secrets = append(secrets, secret)
			}
		}
	}
	for _, v := range cfg.Secrets {
		if v != "" {
			secrets = append(secrets, v)
		}
	}
	var all []string
	for _, s := range secrets {
		all = append(all, Forms(s)...)
	}
	return newRedactor(all)
}

// bySize orders secrets longest first, then bytewise.
func bySize(a, b string) int {
	return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
}

// newRedactor returns a Redactor for secrets, longest first, without
// duplicates.
func newRedactor(secrets []string) *Redactor {
	secrets = slices.Clone(secrets)
	slices.SortFunc(secrets, bySize)
	r := &Redactor{secrets: slices.Compact(secrets)}
	var pairs []string
	for _, s := range r.secrets {
		if len(s) >= minSecretLen {
			pairs = append(pairs, s, Redacted)
		}
	}
	if len(pairs) > 0 {
		r.probe = strings.NewReplacer(pairs...)
	}
	r.anchors = sync.OnceValue(r.buildAnchors)
	return r
}

// stack returns a Redactor that knows the secrets of every one of rs
// without copying them (nil entries are skipped): what a [Keyring]
// learned lately joins what it knew before without building that again.
// Text holding no secret costs one scan per part.
func stack(rs ...*Redactor) *Redactor {
	var parts []*Redactor
	for _, r := range rs {
		for _, p := range r.each() {
			if len(p.secrets) > 0 {
				parts = append(parts, p)
			}
		}
	}
	switch len(parts) {
	case 0:
		return newRedactor(nil)
	case 1:
		return parts[0]
	}
	return &Redactor{parts: parts}
}

// each returns the flat Redactors r is made of: its parts, or r itself;
// none for nil.
func (r *Redactor) each() []*Redactor {
	switch {
	case r == nil:
		return nil
	case r.parts != nil:
		return r.parts
	}
	return []*Redactor{r}
}

// Join returns a Redactor that knows the secrets of every one of rs; nil
// entries are skipped.
func Join(rs ...*Redactor) *Redactor {
	var all []string
	for _, r := range rs {
		for _, p := range r.each() {
			all = append(all, p.secrets...)
		}
	}
	return newRedactor(all)
}

// urlSecrets returns the password (or the lone user name, often a token)
// of raw, when raw is a URL with user information, and the values of its
// query and fragment parameters whose names look secret or whose values
// may be credentials (see [New]).
func urlSecrets(raw string) []string {
	var out []string
	if scheme, after, ok := strings.Cut(raw, "://"); ok {
		if at := userinfoEnd(after); at >= 0 {
			name, pw, hasPw := strings.Cut(after[:at], ":")
			if !hasPw {
				pw = name
			}
			if pw != "" && (hasPw || len(pw) >= minSecretLen) {
				out = append(out, pw)
				if u, err := url.PathUnescape(pw); err == nil && u != pw {
					out = append(out, u)
				}
			}
			raw = scheme + "://" + after[at+1:]
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return out
	}
	for _, part := range []string{u.RawQuery, u.Fragment} {
		q, _ := url.ParseQuery(part)
		for _, name := range slices.Sorted(maps.Keys(q)) {
			for _, v := range q[name] {
				if v != "" && (secretParam(name) || mayBeSecret(v)) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// userinfoEnd returns the index of the '@' that ends the user information
// of s, a URL after its "://", or -1 when s has none. The user information
// ends at the last '@' before the first '/'; a password may hold '#' or '?'
// as people write them, so an '@' after one of those still counts when a
// ':' comes before it ("user:pa#ss@host"), while "host?next=a@b" has no
// user information.
func userinfoEnd(s string) int {
	authority := s
	if i := strings.IndexByte(s, '/'); i >= 0 {
		authority = s[:i]
	}
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return -1
	}
	info := authority[:at]
	if stop := strings.IndexAny(info, "?#"); stop >= 0 {
		if colon := strings.IndexByte(info, ':'); colon < 0 || colon > stop {
			return -1
		}
	}
	return at
}

// mayBeSecret reports whether v may be a credential by its shape alone: a
// well-known token format, or at least 8 characters holding letters and
// digits and no space that are not a path or a URL.
func mayBeSecret(v string) bool {
	if secretValue(v) {
		return true
	}
	if len(v) < 8 || strings.ContainsAny(v, " \t\n") || strings.Contains(v, "://") ||
		strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, ".") ||
		len(v) > 2 && v[1] == ':' && (v[2] == '\\' || v[2] == '/') {
		return false
	}
	letters := strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
	digits := strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
	return letters && digits
}

// HasConfigured reports whether [Redactor.ReplaceConfigured] can change any
// text: whether r knows a configured secret of at least 4 bytes.
func (r *Redactor) HasConfigured() bool {
	for _, p := range r.each() {
		if p.probe != nil {
			return true
		}
	}
	return false
}

// ReplaceConfigured returns s with the configured secrets of at least 4
// bytes replaced by [Redacted], and nothing else changed: the redaction for
// what a server sent, which must not be mangled by the generic rules of
// [Redactor.Text].
func (r *Redactor) ReplaceConfigured(s string) string {
	parts := r.each()
	for {
		var found []string
		for _, p := range parts {
			if p.holds(s) {
				found = p.occurring(s, found)
			}
		}
		if len(found) == 0 {
			return s
		}
		// Longest first, each everywhere: a secret that holds a shorter
		// one is hidden whole, which a single leftmost pass would not
		// guarantee. Only the secrets s holds are looked for (a Keyring
		// may know thousands). The marker may make a secret appear
		// that was not there ("x" + "***" of a secret "x***"): the next
		// round hides it, so that the result holds none; each round
		// shortens s.
		slices.SortFunc(found, bySize)
		for _, secret := range slices.Compact(found) {
			s = strings.ReplaceAll(s, secret, Redacted)
		}
	}
}

// holds reports whether s holds a secret of r (a flat Redactor) of at
// least minSecretLen bytes. It runs the probe without building the text it
// would make: most text holds no secret, and copying every message twice
// to find that out was a share of all a Bridge allocates.
func (r *Redactor) holds(s string) bool {
	if r.probe == nil {
		return false
	}
	w := sameWriter{s: s}
	_, _ = r.probe.WriteString(&w, s)
	return w.differs || w.off != len(s)
}

// sameWriter compares what is written to it with s: differs is set at
// the first write that is not the text of s that comes next. With the
// final length, it tells whether the writes make s exactly.
type sameWriter struct {
	s       string
	off     int
	differs bool
}

func (w *sameWriter) WriteString(x string) (int, error) {
	if !w.differs {
		if end := w.off + len(x); end <= len(w.s) && w.s[w.off:end] == x {
			w.off = end
		} else {
			w.differs = true
		}
	}
	return len(x), nil
}

func (w *sameWriter) Write(b []byte) (int, error) {
	if !w.differs {
		if end := w.off + len(b); end <= len(w.s) && w.s[w.off:end] == string(b) {
			w.off = end
		} else {
			w.differs = true
		}
	}
	return len(b), nil
}

// anchor is where to look for a secret of a Redactor: the secret (its
// index in secrets) holds at off the 4 bytes it is filed under.
type anchor struct {
	secret, off int32
}

// smallSet is the most secrets a Redactor looks for one by one in a text
// a probe found a secret in; more are looked up by anchors.
const smallSet = 16

// anchorTries is how many places in a secret are considered for its
// anchor.
const anchorTries = 16

// buildAnchors files each secret of at least minSecretLen bytes under 4
// bytes it holds, chosen among anchorTries places in it as the ones the
// fewest secrets were filed under so far: tokens share long prefixes
// ("eyJhbGciOi..."), and 4 bytes filed under by thousands of them would
// make every place in a text that holds those bytes cost thousands of
// comparisons.
func (r *Redactor) buildAnchors() map[uint32][]anchor {
	if len(r.secrets) <= smallSet {
		return nil
	}
	m := make(map[uint32][]anchor, len(r.secrets))
	for i, s := range r.secrets {
		if len(s) < minSecretLen {
			continue
		}
		last := len(s) - minSecretLen
		best, bestN := last, len(m[quad(s, last)])
		for t := range anchorTries {
			off := last * t / anchorTries
			if n := len(m[quad(s, off)]); n < bestN {
				best, bestN = off, n
			}
		}
		k := quad(s, best)
		m[k] = append(m[k], anchor{secret: int32(i), off: int32(best)})
	}
	return m
}

// quad returns the 4 bytes of s at i as a number.
func quad(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// occurring appends to found every secret of r (a flat Redactor) of at
// least minSecretLen bytes that s holds, overlapping ones included; a
// secret held several times may be appended several times.
func (r *Redactor) occurring(s string, found []string) []string {
	idx := r.anchors()
	if idx == nil {
		for _, secret := range r.secrets {
			if len(secret) >= minSecretLen && strings.Contains(s, secret) {
				found = append(found, secret)
			}
		}
		return found
	}
	for i := 0; i+minSecretLen <= len(s); i++ {
		for _, a := range idx[quad(s, i)] {
			secret := r.secrets[a.secret]
			start := i - int(a.off)
			if start >= 0 && start+len(secret) <= len(s) && s[start:start+len(secret)] == secret {
				found = append(found, secret)
			}
		}
	}
	return found
}

// Expanded returns the secrets in value, the value of the environment
// variable name expanded into a configuration, to be kept in
// [Config.Secrets]: value itself when the name looks secret or the value
// may be a credential (see [New]); of a URL under a harmless name, only its
// password and the query values that may be credentials. Expanded returns
// nil when value holds no secret.
func Expanded(name, value string) []string {
	if value == "" || !secretName(name) && !mayBeSecret(value) && !strings.Contains(value, "://") {
		return nil
	}
	if strings.Contains(value, "://") && !secretName(name) {
		return urlSecrets(value)
	}
	return []string{value}
}

package secrets

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// MaxLearned bounds the credentials a [Keyring] keeps besides its
// configured secrets: when more are learned, the oldest are forgotten. A
// login, each refresh and each registration add a few; the bound keeps a
// process that refreshes hourly for months from growing without limit,
// while a credential stays known long after it expired.
const MaxLearned = 256

// Keyring is a [Redactor] that learns: credentials obtained at run time
// (access, refresh and ID tokens, authorization codes, client secrets from
// dynamic registration) join the configured secrets from the moment
// [Keyring.Learn] is told of them, in every form in which they are likely
// to be written (see [Forms]). A nil *Keyring redacts as a nil *Redactor
// does and learns nothing. Its methods are safe for concurrent use.
type Keyring struct {
	base *Redactor

	mu      sync.Mutex
	learned [][]string // the forms of each credential, oldest first
	known   map[string]bool
	cur     atomic.Pointer[Redactor]
	// stale: cur lacks credentials learned since; the next Redactor
	// builds it again, once for all that were learned meanwhile (many
	// users' logins at once cost one build, not one each).
	stale atomic.Bool
}

// NewKeyring returns a Keyring that knows the secrets of base (nil for
// none) and learns more. base is not modified.
func NewKeyring(base *Redactor) *Keyring {
	k := &Keyring{base: base, known: map[string]bool{}}
	k.cur.Store(base)
	return k
}

// Learn adds credentials; "" entries and those already known are
// skipped. The credentials and their encoded forms are redacted in all
// that the Keyring's methods return from then on.
func (k *Keyring) Learn(credentials ...string) {
	if k == nil {
		return
	}
	var add [][]string
	for _, c := range credentials {
		if c != "" && !k.knows(c) {
			add = append(add, Forms(c))
		}
	}
	if add != nil {
		k.add(add)
	}
}

// knows reports whether credential was learned already (the usual case:
// every request's Authorization value is learned before it is sent), so
// that its forms are not computed again.
func (k *Keyring) knows(credential string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.known[credential]
}

// LearnClient adds the client secret of clientID and the forms in which
// HTTP Basic authentication sends the pair (see [BasicForms]).
func (k *Keyring) LearnClient(clientID, secret string) {
	if k == nil || secret == "" {
		return
	}
	k.add([][]string{Forms(secret), BasicForms(clientID, secret)})
}

func (k *Keyring) add(creds [][]string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	changed := false
	for _, forms := range creds {
		if k.known[forms[0]] {
			continue
		}
		k.known[forms[0]] = true
		k.learned = append(k.learned, forms)
		changed = true
	}
	if !changed {
		return
	}
	for len(k.learned) > MaxLearned {
		delete(k.known, k.learned[0][0])
		k.learned = k.learned[1:]
	}
	k.stale.Store(true)
}

// Redactor returns a snapshot of what k knows now: its configured
// secrets and the credentials learned so far.
func (k *Keyring) Redactor() *Redactor {
	if k == nil {
		return nil
	}
	if k.stale.Load() {
		k.mu.Lock()
		if k.stale.Load() {
			var all []string
			for _, forms := range k.learned {
				all = append(all, forms...)
			}
			k.cur.Store(Join(k.base, newRedactor(all)))
			k.stale.Store(false)
		}
		k.mu.Unlock()
	}
	return k.cur.Load()
}

// Text is [Redactor.Text] with what k knows now.
func (k *Keyring) Text(s string) string { return k.Redactor().Text(s) }

// URL is [Redactor.URL] with what k knows now.
func (k *Keyring) URL(raw string) string { return k.Redactor().URL(raw) }

// CommandLine is [Redactor.CommandLine] with what k knows now.
func (k *Keyring) CommandLine(command string, args []string) string {
	return k.Redactor().CommandLine(command, args)
}

// ReplaceConfigured is [Redactor.ReplaceConfigured] with what k knows
// now, learned credentials included.
func (k *Keyring) ReplaceConfigured(s string) string { return k.Redactor().ReplaceConfigured(s) }

// HasConfigured is [Redactor.HasConfigured] with what k knows now.
func (k *Keyring) HasConfigured() bool { return k.Redactor().HasConfigured() }

// Forms returns credential as it is likely to be written: as it is,
// query-escaped (a form body or URL query), path-escaped, and escaped
// inside a JSON string (with and without HTML escaping). The first entry
// is credential; there are no duplicates.
func Forms(credential string) []string {
	out := []string{credential}
	add := func(f string) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	add(url.QueryEscape(credential))
	add(url.PathEscape(credential))
	add(strings.ReplaceAll(url.QueryEscape(credential), "+", "%20"))
	add(jsonString(credential, true))
	add(jsonString(credential, false))
	return out
}

// jsonString returns s encoded as a JSON string, without the quotes.
func jsonString(s string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s) // a string always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// BasicForms returns the credentials of HTTP Basic authentication for
// clientID and secret as an Authorization header carries them: base64 of
// "id:secret", and of both query-escaped first (RFC 6749 section 2.3.1),
// each in standard and unpadded encoding.
func BasicForms(clientID, secret string) []string {
	var out []string
	for _, pair := range []string{clientID + ":" + secret, url.QueryEscape(clientID) + ":" + url.QueryEscape(secret)} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			if f := enc.EncodeToString([]byte(pair)); !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

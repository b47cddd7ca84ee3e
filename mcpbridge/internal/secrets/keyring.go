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

// MaxLearned bounds the credentials a [Keyring] keeps that no owner
// holds: those learned without one ([Keyring.Learn]) and those of users
// retired ([Keyring.Retire]). When more are kept, the ones learned or
// retired longest ago are forgotten.
const MaxLearned = 1024

// MaxPerOwner bounds the credentials a [Keyring] keeps for one [Owner]:
// the ones it learned most recently (learning a known one again counts),
// so that a token entry refreshed hourly for months keeps its current
// credentials and those of a few refreshes before, never more.
const MaxPerOwner = 16

// Owner is what holds credentials a [Keyring] learned: a token entry (a
// user's token at one server and authorization server, with the client
// registered there), a login, a server's credentials for a user. Its
// credentials are kept while it holds them: they leave when it has
// learned [MaxPerOwner] more recent ones, or when its user is retired.
type Owner struct {
	// User is the user the owner belongs to; "" for the process's own
	// (never retired).
	User string
	// Name tells apart the owners of one user.
	Name string
}

// Keyring is a [Redactor] that learns: credentials obtained at run time
// (access, refresh and ID tokens, authorization codes, client secrets from
// dynamic registration) join the configured secrets from the moment
// [Keyring.Learn] or [Keyring.LearnFor] is told of them, in every form in
// which they are likely to be written (see [Forms]). A credential an
// [Owner] holds is kept as long as it does (see [MaxPerOwner]); others
// are kept while they are among the [MaxLearned] learned or retired
// last. A nil *Keyring redacts as a nil *Redactor does and learns
// nothing. Its methods are safe for concurrent use.
type Keyring struct {
	base *Redactor

	mu     sync.Mutex
	creds  map[string]*learned            // by credential (its first form)
	owners map[string]map[string][]string // user, owner name: credentials, least recently learned first
	pool   []string                       // credentials no owner holds, oldest first

	// The snapshot is settled, built from base and every credential at
	// the last merge, stacked with a part built from the credentials
	// learned since (fresh): a credential learned costs a build of the
	// fresh ones, and the whole is built again only when those, or the
	// credentials forgotten since (dead, still in settled), grow past
	// the square root of the whole (see merge), so that both stay a
	// small cost per credential however many users a process serves.
	settled  *Redactor
	settledN int
	fresh    map[string]bool
	dead     int
	cur      atomic.Pointer[Redactor]
	// stale: cur lacks credentials learned since; the next Redactor
	// builds it again, once for all that were learned meanwhile (many
	// users' logins at once cost one build, not one each).
	stale atomic.Bool
}

// learned is one credential a Keyring knows.
type learned struct {
	forms []string
	// refs counts the owners holding it, and the pool when it is there.
	refs    int
	pooled  bool
	settled bool // in Keyring.settled
}

// NewKeyring returns a Keyring that knows the secrets of base (nil for
// none) and learns more. base is not modified.
func NewKeyring(base *Redactor) *Keyring {
	k := &Keyring{
		base:    base,
		creds:   map[string]*learned{},
		owners:  map[string]map[string][]string{},
		settled: base,
		fresh:   map[string]bool{},
	}
	k.cur.Store(base)
	return k
}

// Learn adds credentials no owner holds (see [MaxLearned]); "" entries
// are skipped. The credentials and their encoded forms are redacted in
// all that the Keyring's methods return from then on.
func (k *Keyring) Learn(credentials ...string) {
	k.LearnFor(Owner{}, credentials...)
}

// LearnFor adds credentials held by owner, the zero Owner meaning none
// (as [Keyring.Learn]); "" entries are skipped. Learning a credential
// owner holds already makes it owner's most recent.
func (k *Keyring) LearnFor(owner Owner, credentials ...string) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, c := range credentials {
		if c != "" {
			k.learnLocked(owner, c, Forms)
		}
	}
}

// LearnClient adds the client secret of clientID and the forms in which
// HTTP Basic authentication sends the pair (see [BasicForms]), held by no
// owner.
func (k *Keyring) LearnClient(clientID, secret string) {
	k.LearnClientFor(Owner{}, clientID, secret)
}

// LearnClientFor is [Keyring.LearnClient] for credentials owner holds.
func (k *Keyring) LearnClientFor(owner Owner, clientID, secret string) {
	if k == nil || secret == "" {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.learnLocked(owner, secret, Forms)
	basic := BasicForms(clientID, secret)
	k.learnLocked(owner, basic[0], func(string) []string { return basic })
}

// Retire gives up what the owners of user hold: their credentials stay
// known as if learned without an owner (see [MaxLearned]), so that those
// of a user who has left stay hidden for a while, and a process serving
// ever new users stays bounded. A user who comes back learns their
// credentials again as they are loaded. Retire("") does nothing.
func (k *Keyring) Retire(user string) {
	if k == nil || user == "" {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, held := range k.owners[user] {
		for _, c := range held {
			k.poolLocked(c)
			k.unrefLocked(c)
		}
	}
	delete(k.owners, user)
}

// learnLocked makes credential (whose forms are forms(credential)) held
// by owner, its most recent; the zero owner puts it in the pool.
func (k *Keyring) learnLocked(owner Owner, credential string, forms func(string) []string) {
	if k.creds[credential] == nil {
		k.creds[credential] = &learned{forms: forms(credential)}
		k.fresh[credential] = true
		k.stale.Store(true)
	}
	if owner == (Owner{}) {
		k.poolLocked(credential)
		return
	}
	names := k.owners[owner.User]
	if names == nil {
		names = map[string][]string{}
		k.owners[owner.User] = names
	}
	held := names[owner.Name]
	if len(held) > 0 && held[len(held)-1] == credential {
		return // the usual case: each request's Authorization value
	}
	if i := slices.Index(held, credential); i >= 0 {
		names[owner.Name] = append(slices.Delete(held, i, i+1), credential)
		return
	}
	k.creds[credential].refs++
	held = append(held, credential)
	if len(held) > MaxPerOwner {
		k.unrefLocked(held[0])
		held = slices.Delete(held, 0, 1)
	}
	names[owner.Name] = held
}

// poolLocked puts credential, known, in the pool as its most recent.
func (k *Keyring) poolLocked(credential string) {
	l := k.creds[credential]
	if l.pooled {
		i := slices.Index(k.pool, credential)
		k.pool = append(slices.Delete(k.pool, i, i+1), credential)
		return
	}
	l.pooled = true
	l.refs++
	k.pool = append(k.pool, credential)
	if len(k.pool) > MaxLearned {
		old := k.pool[0]
		k.pool = slices.Delete(k.pool, 0, 1)
		k.creds[old].pooled = false
		k.unrefLocked(old)
	}
}

// unrefLocked drops a holding of credential, forgetting it after the
// last.
func (k *Keyring) unrefLocked(credential string) {
	l := k.creds[credential]
	if l.refs--; l.refs > 0 {
		return
	}
	delete(k.creds, credential)
	if l.settled {
		k.dead++ // settled hides it until the next merge
	} else {
		delete(k.fresh, credential)
	}
	k.stale.Store(true)
}

// Known returns how many credentials k keeps learned.
func (k *Keyring) Known() int {
	if k == nil {
		return 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.creds)
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
			k.buildLocked()
			k.stale.Store(false)
		}
		k.mu.Unlock()
	}
	return k.cur.Load()
}

// mergeAt is the fewest fresh and dead credentials that make a snapshot
// build the settled part again (besides the square root rule).
const mergeAt = 64

// buildLocked builds the snapshot: the fresh part, or, when the fresh and
// dead credentials are more than mergeAt and the square root of the
// settled ones times 2, everything.
func (k *Keyring) buildLocked() {
	if n := len(k.fresh) + k.dead; n > mergeAt && n*n > 4*k.settledN {
		var all []string
		for _, l := range k.creds {
			all = append(all, l.forms...)
			l.settled = true
		}
		k.settled = Join(k.base, &Redactor{secrets: all})
		k.settledN, k.dead = len(k.creds), 0
		clear(k.fresh)
		k.cur.Store(k.settled)
		return
	}
	var all []string
	for c := range k.fresh {
		all = append(all, k.creds[c].forms...)
	}
	k.cur.Store(stack(k.settled, newRedactor(all)))
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

package testauth

import (
	"regexp"
	"strings"
	"sync"
)

// Browser is a program's stderr (or any writer) that plays the person at
// the browser: every line holding only an http URL, indented, is a login
// URL it consents to in the background. Wait waits for those logins and
// returns their errors; String returns everything written.
type Browser struct {
	mu   sync.Mutex
	text strings.Builder
	wg   sync.WaitGroup
	errs []error
}

var loginURLLine = regexp.MustCompile(`(?m)^\s+(http://\S+)\s*$`)

func (b *Browser) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.text.Write(p)
	for _, m := range loginURLLine.FindAllStringSubmatch(string(p), -1) {
		b.wg.Add(1)
		go func(u string) {
			defer b.wg.Done()
			if _, err := Consent(u); err != nil {
				b.mu.Lock()
				b.errs = append(b.errs, err)
				b.mu.Unlock()
			}
		}(m[1])
	}
	return len(p), nil
}

// Wait waits for the logins started so far and returns their errors.
func (b *Browser) Wait() []error {
	b.wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.errs
}

// String returns what was written.
func (b *Browser) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.text.String()
}

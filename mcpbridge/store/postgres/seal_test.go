package postgres

import (
	"bytes"
	"testing"
)

// FuzzOpen: whatever a row holds (key id, sealed bytes, key parts), open
// returns the plaintext only for what seal wrote for that very row under
// that key, and otherwise an error; it never panics.
func FuzzOpen(f *testing.F) {
	k, err := newKeyring([]Key{{ID: "k1", Secret: bytes.Repeat([]byte{1}, 32)}, {ID: "k2", Secret: bytes.Repeat([]byte{2}, 32)}})
	if err != nil {
		f.Fatal(err)
	}
	id, sealed := k.seal([]byte(`{"accessToken":"x"}`), tokensName, "u", "s", "i")
	f.Add(id, sealed, "u", "s", "i")
	f.Add("k2", sealed, "u", "s", "i")
	f.Add(id, sealed[:5], "u", "s", "i")
	f.Add(id, sealed, "u", "si", "")
	f.Add("", []byte{}, "", "", "")
	f.Fuzz(func(t *testing.T, keyID string, row []byte, user, server, issuer string) {
		plain, err := k.open(keyID, row, tokensName, user, server, issuer)
		if err != nil {
			return
		}
		// Only a genuine row decrypts: one seal wrote, under that key id,
		// for those key parts. (Workers seal with nonces of their own, so
		// the bytes may be another seal's of the same row.)
		if keyID != id || string(plain) != `{"accessToken":"x"}` || user != "u" || server != "s" || issuer != "i" {
			t.Fatalf("open(%q, %x, %q, %q, %q) = %q; want an error", keyID, row, user, server, issuer, plain)
		}
	})
}

// TestSealFresh: two seals of one plaintext differ (a fresh nonce each).
func TestSealFresh(t *testing.T) {
	k, _ := newKeyring([]Key{{ID: "k1", Secret: bytes.Repeat([]byte{1}, 32)}})
	_, a := k.seal([]byte("same"), tokensName, "u")
	_, b := k.seal([]byte("same"), tokensName, "u")
	if bytes.Equal(a, b) {
		t.Error("two seals of one plaintext are equal")
	}
}

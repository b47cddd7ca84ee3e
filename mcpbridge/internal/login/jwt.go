package login

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// parsePrivateKey reads a PEM private key (PKCS #8, or SEC 1 EC, or
// PKCS #1 RSA) and the JWS algorithm it signs with: ES256 for a P-256
// key, RS256 for RSA. alg, when set, must agree.
func parsePrivateKey(pemKey, alg string) (crypto.Signer, string, error) {
	block, _ := pem.Decode([]byte(pemKey))
	if block == nil {
		return nil, "", errors.New("private key: no PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, "", fmt.Errorf("private key: %w", err)
	}
	var signer crypto.Signer
	var want string
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve.Params().Name != "P-256" {
			return nil, "", fmt.Errorf("private key: EC curve %s, want P-256 (ES256)", k.Curve.Params().Name)
		}
		signer, want = k, "ES256"
	case *rsa.PrivateKey:
		signer, want = k, "RS256"
	default:
		return nil, "", fmt.Errorf("private key: %T, want an EC P-256 or RSA key", key)
	}
	if alg != "" && alg != want {
		return nil, "", fmt.Errorf("private key is for %s, not %s", want, alg)
	}
	return signer, want, nil
}

// clientAssertion returns a signed JWT that authenticates client id at
// the token endpoint audience (RFC 7523 section 2.2, private_key_jwt).
func clientAssertion(key crypto.Signer, alg, id, audience string, now time.Time) (string, error) {
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	claims := map[string]any{
		"iss": id,
		"sub": id,
		"aud": audience,
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
		"jti": base64.RawURLEncoding.EncodeToString(jti),
	}
	return signJWT(key, alg, map[string]any{"typ": "JWT"}, claims)
}

// signJWT returns the compact JWS of claims signed with key, its header
// the members of header with alg added.
func signJWT(key crypto.Signer, alg string, header, claims map[string]any) (string, error) {
	h := map[string]any{"alg": alg}
	for k, v := range header {
		h[k] = v
	}
	head, err := json.Marshal(h)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString(head) + "." + base64.RawURLEncoding.EncodeToString(payload)
	sum := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		if err != nil {
			return "", err
		}
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	default:
		if sig, err = key.Sign(rand.Reader, sum[:], crypto.SHA256); err != nil {
			return "", err
		}
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

package result

import (
	"encoding/base64"
	"errors"
	"strings"
)

// DecodeBase64 decodes the data of an image, audio or embedded-resource
// content block and the blob of a resource: s in the standard or URL
// alphabet, padded or not, ignoring ASCII white space (servers wrap long
// lines). Empty data is an error: an empty inline part is of no use to the
// model.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			return -1
		}
		return r
	}, s)
	if s == "" {
		return nil, errors.New("no data")
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(s); err == nil {
			return d, nil
		}
	}
	// The decoder's byte offset would count from the stripped text, which
	// misleads more than it helps.
	return nil, errors.New("data is not valid base64")
}

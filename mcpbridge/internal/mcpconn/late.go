package mcpconn

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// A server of both eras that answers server/discover only after the
// bounded probe gave up (a process still starting, such as a Node server)
// is spoken to with the handshake. On stdio its late answer still arrives,
// ahead of the handshake's, and says that the server speaks 2026-07-28:
// the connection keeps the handshake it made, but [Conn.NextEra] tells the
// caller to ask the 2026-07-28 way next time.

// lateAnswer watches a stdio server's lines while its connection is being
// made, for a server/discover result that names the 2026-07-28 revision.
type lateAnswer struct {
	watching atomic.Bool
	mu       sync.Mutex
	version  string
}

// supportedVersions is the key of a server/discover result; lines without
// it are not decoded.
var supportedVersions = []byte(`"supportedVersions"`)

// see looks at one line from the server.
func (l *lateAnswer) see(line []byte) {
	if !l.watching.Load() || !bytes.Contains(line, supportedVersions) {
		return
	}
	var m struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &m) != nil || !slices.Contains(m.Result.SupportedVersions, mcp.LATEST_PROTOCOL_VERSION) {
		return
	}
	l.mu.Lock()
	l.version = mcp.LATEST_PROTOCOL_VERSION
	l.mu.Unlock()
}

// get returns the 2026-07-28 version a server/discover result named, or "".
func (l *lateAnswer) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.version
}

// NextEra returns the protocol version a later connection to this server
// should ask for first (see [Spec.Era]): the one in use, or 2026-07-28 when
// the server answered server/discover only after the bounded probe had
// given up and the handshake was made instead.
func (c *Conn) NextEra() string {
	v := c.ProtocolVersion()
	if c.late != nil && !IsModern(v) {
		if late := c.late.get(); late != "" {
			return late
		}
	}
	return v
}

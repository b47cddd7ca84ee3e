package mcpconn

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// A server of both eras that answers server/discover only after the
// bounded probe gave up (a process still starting, such as a Node server)
// is spoken to with the handshake. On stdio its late answer still arrives,
// before or soon after the handshake's (a server that handles requests
// concurrently may answer them in either order), and says that the server
// speaks 2026-07-28. The connection keeps the handshake it made, but
// [Conn.NextEra] and [Spec.OnNextEra] tell the caller to ask the
// 2026-07-28 way next time.

// lateWindow is how long after connecting a late server/discover answer is
// still looked for.
const lateWindow = 5 * time.Second

// lateAnswer watches a stdio server's lines for a server/discover result,
// from the start of the connection until one is seen or lateWindow after
// the connection was made.
type lateAnswer struct {
	done     atomic.Bool   // a result was seen, or the window closed
	deadline atomic.Int64  // UnixNano when the window closes; 0 while connecting
	learnt   chan struct{} // closed when a 2026-07-28 version was seen
	mu       sync.Mutex
	version  string
}

func newLateAnswer() *lateAnswer {
	return &lateAnswer{learnt: make(chan struct{})}
}

// supportedVersions is the key of a server/discover result; lines without
// it are not decoded.
var supportedVersions = []byte(`"supportedVersions"`)

// connected starts the window that closes lateWindow from now.
func (l *lateAnswer) connected() {
	l.deadline.Store(time.Now().Add(lateWindow).UnixNano())
}

// see looks at one line from the server.
func (l *lateAnswer) see(line []byte) {
	if l.done.Load() {
		return
	}
	if d := l.deadline.Load(); d != 0 && time.Now().UnixNano() > d {
		l.done.Store(true)
		return
	}
	if !bytes.Contains(line, supportedVersions) {
		return
	}
	var m struct {
		Result *struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &m) != nil || m.Result == nil || m.Result.SupportedVersions == nil {
		return
	}
	l.done.Store(true)
	if !slices.Contains(m.Result.SupportedVersions, mcp.LATEST_PROTOCOL_VERSION) {
		return
	}
	l.mu.Lock()
	l.version = mcp.LATEST_PROTOCOL_VERSION
	l.mu.Unlock()
	close(l.learnt)
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
// given up and the handshake was made instead. A late answer that arrives
// after the connection was made is reported by [Spec.OnNextEra] too.
func (c *Conn) NextEra() string {
	v := c.ProtocolVersion()
	if c.late != nil && !IsModern(v) {
		if late := c.late.get(); late != "" {
			return late
		}
	}
	return v
}

// learnt returns the channel closed when a late answer named 2026-07-28 on
// a connection made with the handshake; nil (never ready) otherwise.
func (c *Conn) learnt() <-chan struct{} {
	if c.late == nil || IsModern(c.ProtocolVersion()) {
		return nil
	}
	return c.late.learnt
}

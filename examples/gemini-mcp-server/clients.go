package main

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// maxOwned is how many session IDs the server remembers the client of; the
// least recently used are forgotten first (a forgotten session can no
// longer be continued through this server).
const maxOwned = 10000

// clientSessions keeps each MCP client's sessions apart: every session ID
// the server hands out belongs to the client (the MCP session) it was handed
// to, chat-reply without an ID continues that client's latest session, and
// an ID handed to another client is unknown. It is safe for concurrent use.
type clientSessions struct {
	mu     sync.Mutex
	owner  map[string]*list.Element // session ID -> element of order
	order  *list.List               // of *owned, front most recently used
	latest map[string]string        // client -> its latest session ID
}

// owned is one session ID and the client it belongs to.
type owned struct{ id, client string }

func newClientSessions() *clientSessions {
	return &clientSessions{owner: map[string]*list.Element{}, order: list.New(), latest: map[string]string{}}
}

// clientOf names the MCP client of ctx: its MCP session ID (one per
// connection over stdio, one per Mcp-Session-Id over HTTP); "" when ctx
// carries none.
func clientOf(ctx context.Context) string {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}

// resolve returns the session ID a chat-reply of client should continue:
// id itself when it is not another client's, or the client's latest when
// id is "".
func (c *clientSessions) resolve(client, id string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == "" {
		latest, ok := c.latest[client]
		if !ok {
			return "", errNoSession
		}
		return latest, nil
	}
	if e, ok := c.owner[id]; ok && e.Value.(*owned).client != client {
		return "", fmt.Errorf("%w %q", errUnknownSession, id)
	}
	return id, nil
}

// used records that client created or continued the session id, which is
// then its latest. An ID already another client's is left with that client.
func (c *clientSessions) used(client, id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.owner[id]; ok {
		if e.Value.(*owned).client != client {
			return
		}
		c.order.MoveToFront(e)
	} else {
		c.owner[id] = c.order.PushFront(&owned{id: id, client: client})
	}
	c.latest[client] = id
	for c.order.Len() > maxOwned {
		old := c.order.Remove(c.order.Back()).(*owned)
		delete(c.owner, old.id)
		if c.latest[old.client] == old.id {
			delete(c.latest, old.client)
		}
	}
}

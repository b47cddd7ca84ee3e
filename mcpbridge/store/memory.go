package store

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// Memory is a [Store] in memory, for one process: two Bridges of one
// process that share it share their tokens, tasks and caches, and
// everything ends with the process. The zero value is an empty store
// ready for use; it is safe for concurrent use and must not be copied
// after first use.
type Memory struct {
	auth.MemoryStore

	mu     sync.Mutex
	tasks  map[TaskKey]*Task
	protos map[string]Protocol
	tools  map[ToolsKey]*ToolList
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{} }

// PutTask keeps a copy of t for key.
func (m *Memory) PutTask(ctx context.Context, key TaskKey, t *Task) error {
	if err := checkTask(ctx, key, t); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tasks == nil {
		m.tasks = map[TaskKey]*Task{}
	}
	c := *t
	m.tasks[key] = &c
	return nil
}

// LoadTask returns a copy of the record of key, or nil when none is kept
// or it has expired.
func (m *Memory) LoadTask(ctx context.Context, key TaskKey) (*Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tasks[key]
	if t == nil {
		return nil, nil
	}
	if t.Expired(time.Now()) {
		delete(m.tasks, key)
		return nil, nil
	}
	c := *t
	return &c, nil
}

// DeleteTask forgets the record of key.
func (m *Memory) DeleteTask(ctx context.Context, key TaskKey) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tasks, key)
	return nil
}

// LoadProtocol returns the protocol kept for server.
func (m *Memory) LoadProtocol(ctx context.Context, server string) (Protocol, error) {
	if err := ctx.Err(); err != nil {
		return Protocol{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.protos[server], nil
}

// SaveProtocol keeps p for server; the zero Protocol forgets the server
// and its tools lists.
func (m *Memory) SaveProtocol(ctx context.Context, server string, p Protocol) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p == (Protocol{}) {
		delete(m.protos, server)
		for k := range m.tools {
			if k.Server == server {
				delete(m.tools, k)
			}
		}
		return nil
	}
	if m.protos == nil {
		m.protos = map[string]Protocol{}
	}
	m.protos[server] = p
	return nil
}

// LoadTools returns a copy of the fresh list kept for key, or nil.
func (m *Memory) LoadTools(ctx context.Context, key ToolsKey) (*ToolList, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.tools[key]
	if l == nil {
		return nil, nil
	}
	if !time.Now().Before(l.Until) {
		delete(m.tools, key)
		return nil, nil
	}
	return l.clone(), nil
}

// SaveTools keeps a copy of l for key, or forgets key's list when l is
// nil or stale.
func (m *Memory) SaveTools(ctx context.Context, key ToolsKey, l *ToolList) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if l == nil || !time.Now().Before(l.Until) {
		delete(m.tools, key)
		return nil
	}
	if m.tools == nil {
		m.tools = map[ToolsKey]*ToolList{}
	}
	m.tools[key] = l.clone()
	return nil
}

// Expired reports whether t's server may have discarded it at now.
func (t *Task) Expired(now time.Time) bool {
	return !t.Expires.IsZero() && !now.Before(t.Expires)
}

// clone returns a copy of l sharing nothing with it.
func (l *ToolList) clone() *ToolList {
	c := &ToolList{Until: l.Until, Tools: make([]json.RawMessage, len(l.Tools))}
	for i, t := range l.Tools {
		c.Tools[i] = slices.Clone(t)
	}
	return c
}

// checkTask refuses what no store keeps: a record without a call id or
// task id, or nil.
func checkTask(ctx context.Context, key TaskKey, t *Task) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	switch {
	case t == nil:
		return errNilTask
	case key.Call == "" || t.ID == "":
		return errNoTaskID
	}
	return nil
}

var (
	errNilTask  = errors.New("task store: nil task")
	errNoTaskID = errors.New("task store: a record needs a call id and a task id")
)

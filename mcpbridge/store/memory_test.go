package store_test

import (
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/store"
	"github.com/mcpgenai/bridge/mcpbridge/store/storetest"
)

func TestMemory(t *testing.T) {
	storetest.Run(t, store.NewMemory())
}

func TestMemoryZeroValue(t *testing.T) {
	var m store.Memory
	storetest.Run(t, &m)
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// awaitPeers implements -await-peers=DIR:N: it marks this process's arrival
// with a file in DIR, then returns once N processes have arrived. Servers
// started one after the other, each waiting for its peers before it
// serves, never all arrive; servers started together do, however slowly
// the machine starts them.
func awaitPeers(spec string) error {
	dir, ns, ok := strings.Cut(spec, ":")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || n < 1 {
		return fmt.Errorf("-await-peers: want DIR:N, got %q", spec)
	}
	if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), nil, 0o600); err != nil {
		return fmt.Errorf("-await-peers: %w", err)
	}
	for {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("-await-peers: %w", err)
		}
		if len(entries) >= n {
			return nil
		}
		time.Sleep(10 * time.Millisecond) // polls the directory; no timing is assumed
	}
}

package main

import (
	"fmt"
	"os"
	"time"
)

// crashOnFile implements -crash-on-file=PATH: once PATH exists, the server
// exits with code 3 as -crash-after does. A test thus decides when the
// server dies, after it connected, whatever the machine's speed.
func crashOnFile(path string) {
	for {
		if _, err := os.Stat(path); err == nil {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on schedule")
			os.Exit(3)
		}
		time.Sleep(10 * time.Millisecond) // polls the file; no timing is assumed
	}
}

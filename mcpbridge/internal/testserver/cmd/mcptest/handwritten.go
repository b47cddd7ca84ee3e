package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// handwrittenTools is the tools/list page of the handwritten server: exact
// bytes with odd spacing and key order, a tool without a name and a
// duplicate.
const handwrittenTools = `[{"name":"","inputSchema":{"type":"object"}},` +
	`{"name":"spaced","inputSchema":{ "type" : "object", "z":1,"a":{"const":2} },"annotations":{"destructiveHint":true,"readOnlyHint":"bad"}},` +
	`{"name":"spaced","inputSchema":{"type":"object"}}]`

// deepTools is a tools/list page whose middle tool's schema nests 5,000
// levels deep, between two ordinary tools.
func deepTools() string {
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 5000) + `{"type":"string"}` + strings.Repeat(`}}`, 5000)
	return `[{"name":"before","inputSchema":{"type":"object"}},` +
		`{"name":"deep","description":"nested","inputSchema":` + deep + `},` +
		`{"name":"after","inputSchema":{"type":"object"}}]`
}

// serveHandwritten answers JSON-RPC by hand, for shapes mcp-go's server
// never produces. mode "once" lists handwrittenTools; "loop" lists them with
// every page pointing to the same next cursor; "deep" lists deepTools;
// "endless" answers tools/list with a line that never ends.
func serveHandwritten(mode string) {
	loop := mode == "loop"
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || len(msg.ID) == 0 {
			continue
		}
		var result string
		switch msg.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"handwritten","version":"0"}}`
		case "tools/list":
			next := ""
			if loop {
				next = `,"nextCursor":"same"`
			}
			result = `{"tools":` + handwrittenTools + next + `}`
			switch mode {
			case "deep":
				result = `{"tools":` + deepTools() + `}`
			case "endless":
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"`, msg.ID)
				chunk := strings.Repeat("x", 1<<16)
				for {
					if _, err := os.Stdout.WriteString(chunk); err != nil {
						os.Exit(0)
					}
				}
			}
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no %s"}}`+"\n", msg.ID, msg.Method)
			continue
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", msg.ID, result)
	}
}

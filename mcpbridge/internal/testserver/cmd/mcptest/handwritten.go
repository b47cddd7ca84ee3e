package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// handwrittenTools is the tools/list page of the handwritten server: exact
// bytes with odd spacing and key order, a tool without a name and a
// duplicate.
const handwrittenTools = `[{"name":"","inputSchema":{"type":"object"}},` +
	`{"name":"spaced","inputSchema":{ "type" : "object", "z":1,"a":{"const":2} },"annotations":{"destructiveHint":true,"readOnlyHint":"bad"}},` +
	`{"name":"spaced","inputSchema":{"type":"object"}}]`

// serveHandwritten answers JSON-RPC by hand, for shapes mcp-go's server
// never produces: with loop set, every tools/list page points to the same
// next cursor.
func serveHandwritten(loop bool) {
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
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no %s"}}`+"\n", msg.ID, msg.Method)
			continue
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", msg.ID, result)
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// serveSampleCancel answers JSON-RPC by hand (protocol 2025-11-25) with one
// tool, "sample_cancel": its call sends sampling/createMessage (id
// "s-1"), waits until the file flag exists (the client's model is then at
// work), sends notifications/cancelled for it, and answers the call with
// "answer: <the client's response JSON>" once the client responded.
func serveSampleCancel(flag string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	var call json.RawMessage // id of the tools/call waiting for the answer
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || len(msg.ID) == 0 {
			continue
		}
		switch msg.Method {
		case "initialize":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sample-cancel","version":"0"}}}`+"\n", msg.ID)
		case "tools/list":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"sample_cancel","inputSchema":{"type":"object"}}]}}`+"\n", msg.ID)
		case "tools/call":
			call = msg.ID
			fmt.Println(`{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"think long"}}],"maxTokens":10}}`)
			go func() {
				for {
					if _, err := os.Stat(flag); err == nil {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				fmt.Println(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s-1","reason":"the server gave up"}}`)
			}()
		case "":
			if string(msg.ID) == `"s-1"` && call != nil {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`+"\n", call, "answer: "+in.Text())
			}
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no %s"}}`+"\n", msg.ID, msg.Method)
		}
	}
}

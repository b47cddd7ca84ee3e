package confirm_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpgenai/bridge/confirm"
)

func ExamplePolicy() {
	var p confirm.Policy // the zero Policy asks, and has nobody to ask
	d, err := p.Decide(context.Background(), confirm.Request{Server: "files", ServerTool: "delete"})
	fmt.Println(d.Proceed, err)
	// Output: false confirming server "files" tool "delete": a person must approve it and nobody can be asked here (trust the server or allow-list the tool to run it without asking)
}

func ExamplePolicy_Decide() {
	p := &confirm.Policy{
		AutoAllowReadOnly: true,
		// A terminal program would print the request and read the answer.
		Confirmer: confirm.ConfirmerFunc(func(ctx context.Context, req confirm.Request) (confirm.Answer, error) {
			fmt.Printf("  asked: run %s with %v?\n", req.Name, req.Args)
			return confirm.AlwaysTool, nil
		}),
	}
	p.Deny(confirm.Key{Server: "files", ServerTool: "format_disk"})
	readOnly := true

	for _, req := range []confirm.Request{
		{Server: "files", ServerTool: "write", Name: "write", Args: map[string]any{"path": "a.txt"}},
		{Server: "files", ServerTool: "write", Name: "write", Args: map[string]any{"path": "b.txt"}},
		{Server: "files", ServerTool: "list", Name: "list", Annotations: confirm.Annotations{ReadOnlyHint: &readOnly}},
		{Server: "files", ServerTool: "format_disk", Name: "format_disk"},
		{Server: "home", ServerTool: "lights", Name: "lights", Trusted: true},
	} {
		d, err := p.Decide(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: proceed=%v asked=%v (%s)\n", req.Name, d.Proceed, d.Asked, d.Reason)
	}
	fmt.Println(p.AllowList())
	// Output:
	//   asked: run write with map[path:a.txt]?
	// write: proceed=true asked=true (approved by the user)
	// write: proceed=true asked=false (tool is on the allow-list)
	// list: proceed=true asked=false (tool is annotated read-only)
	// format_disk: proceed=false asked=false (denied by policy)
	// lights: proceed=true asked=false (server is trusted)
	// [server "files" tool "write"]
}

func ExamplePolicy_Save() {
	var p confirm.Policy
	p.Allow(confirm.Key{Server: "web", ServerTool: "fetch"})
	p.Allow(confirm.Key{Server: "files"})
	if err := p.Save(os.Stdout); err != nil {
		fmt.Println(err)
	}

	var q confirm.Policy
	if err := q.Load(strings.NewReader(`{"version": 1, "allow": [{"server": "web", "tool": "fetch"}]}`)); err != nil {
		fmt.Println(err)
	}
	fmt.Println(q.AllowList())
	fmt.Println(q.Load(strings.NewReader(`{"version": 1, "allow": [{"tool": "fetch"}]}`)))
	// Output:
	// {
	//   "version": 1,
	//   "allow": [
	//     {
	//       "server": "files"
	//     },
	//     {
	//       "server": "web",
	//       "tool": "fetch"
	//     }
	//   ]
	// }
	// [server "web" tool "fetch"]
	// loading allow-list: entry 0: no server
}

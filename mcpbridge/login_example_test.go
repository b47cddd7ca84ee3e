package mcpbridge_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// exampleTB runs an example's loopback servers; they stop at cleanup.
type exampleTB struct {
	testing.TB
	cleanups []func()
}

func (e *exampleTB) Helper()                      {}
func (e *exampleTB) Cleanup(f func())             { e.cleanups = append(e.cleanups, f) }
func (e *exampleTB) Fatal(args ...any)            { log.Fatal(args...) }
func (e *exampleTB) Fatalf(f string, args ...any) { log.Fatalf(f, args...) }
func (e *exampleTB) stop() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
}

func ExampleBridge_Login() {
	// An OpenID provider and an MCP server that wants its tokens, on loopback.
	tb := &exampleTB{}
	defer tb.stop()
	as := testauth.Start(tb)
	remote := as.ServeMCP(tb, testserver.New(testserver.Options{Tools: 1}), false, "")
	dir, _ := os.MkdirTemp("", "example-login")
	defer os.RemoveAll(dir)
	store, _ := auth.NewFileStore(filepath.Join(dir, "tokens.json"))

	b, err := mcpbridge.New(&mcpbridge.Config{Servers: []mcpbridge.ServerConfig{
		{Name: "tracker", HTTPURL: remote.URL, Timeout: 10 * time.Second},
	}}, &mcpbridge.Options{
		Logger:     slog.New(slog.DiscardHandler),
		TokenStore: store,
		LoginURL: func(ctx context.Context, server, authURL string) error {
			fmt.Println("login URL for", server)
			// A real host prints authURL or opens a browser. Here the
			// person logs in on the provider's page in the background.
			go func() { _, _ = testauth.Consent(authURL) }()
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := b.Discover(ctx); err != nil {
		log.Fatal(err)
	}
	st := b.Status().Servers[0]
	fmt.Printf("%s: %s, %s\n", st.Name, st.State, st.Auth)

	if err := b.Login(ctx, "tracker"); err != nil {
		log.Fatal(err)
	}
	st = b.Status().Servers[0]
	fmt.Printf("%s: %s, %s, tools %v\n", st.Name, st.State, st.Auth, st.Tools)
	// Output:
	// tracker: DISCONNECTED, login needed
	// login URL for tracker
	// tracker: CONNECTED, authenticated, tools [add_tool echo env raw sleep tool_00 weird]
}

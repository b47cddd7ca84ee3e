// Package hostlogin is how the example programs handle MCP servers that
// need a login: they print the authorization URL (and open a browser when
// one is available), wait for the redirect, and go on.
package hostlogin

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// Timeout bounds the wait for one server's login.
const Timeout = 5 * time.Minute

// ShowURL returns an [mcpbridge.Options.LoginURL] callback that writes the
// URL to w and, when open is true, opens it in a browser.
func ShowURL(w io.Writer, open bool) func(ctx context.Context, server, authURL string) error {
	return func(ctx context.Context, server, authURL string) error {
		fmt.Fprintf(w, "MCP server %q needs a login. Open this URL in a browser:\n\n  %s\n\nWaiting for the login to finish...\n", server, authURL)
		if open {
			if err := openBrowser(authURL); err != nil {
				fmt.Fprintf(w, "(could not open a browser: %v)\n", err)
			}
		}
		return nil
	}
}

// BrowserAvailable reports whether a browser can likely be opened: on
// macOS and Windows always, elsewhere when a graphical session is set.
func BrowserAvailable() bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

func openBrowser(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// LoginAll logs in to every server of b whose status asks for a login, one
// after the other, each within Timeout, and reports on w. It returns how
// many logins succeeded.
func LoginAll(ctx context.Context, b *mcpbridge.Bridge, w io.Writer) int {
	ok := 0
	for _, s := range b.Status().Servers {
		if !s.Auth.NeedsLogin() {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, Timeout)
		err := b.Login(lctx, s.Name)
		cancel()
		if err != nil {
			fmt.Fprintf(w, "login to %q failed: %v\n", s.Name, err)
			continue
		}
		fmt.Fprintf(w, "logged in to %q\n", s.Name)
		ok++
	}
	return ok
}

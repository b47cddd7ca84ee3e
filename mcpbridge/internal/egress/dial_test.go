package egress

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

func TestForbidden(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"169.254.169.254", true},
		{"169.254.0.1", true},
		{"169.254.170.2", true},
		{"fe80::1", true},
		{"[fe80::1%25eth0]", true},
		{"fd00:ec2::254", true},
		{"[fd00:ec2::254]", true},
		{"::ffff:169.254.169.254", true},
		{"100.100.100.200", true},
		{"224.0.0.1", true},
		{"ff02::1", true},
		{"metadata.google.internal", true},
		{"Metadata.Google.Internal.", true},
		{"metadata", true},
		{"127.0.0.1", false},
		{"127.0.0.2", false},
		{"::1", false},
		{"10.0.0.1", false},
		{"192.168.1.1", false},
		{"fd00:ec2::253", false},
		{"example.com", false},
		{"metadata.example.com", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := ForbiddenHost(strings.ReplaceAll(tt.host, "%25", "%")); got != tt.want {
			t.Errorf("ForbiddenHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
	if !Forbidden(netip.MustParseAddr("fe80::1%lo")) {
		t.Error("Forbidden(fe80::1%lo) = false")
	}
}

// fakeDNS answers A queries: names maps a name (with the final dot) to
// its address. It runs until the end of t.
func fakeDNS(t *testing.T, names map[string]string) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			if addr, ok := names[strings.ToLower(q.Name.String())]; ok && q.Type == dnsmessage.TypeA {
				_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60},
					dnsmessage.AResource{A: netip.MustParseAddr(addr).As4()})
			}
			msg, _ := b.Finish()
			_, _ = pc.WriteTo(msg, from)
		}
	}()
	t.Cleanup(func() {
		pc.Close()
		wg.Wait()
	})
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
}

// TestTransportRefusesBeforeConnect: a name that resolves to a link-local
// or metadata address is refused by the dialer's Control hook, after the
// resolution and before any connection; the same resolver's name for a
// loopback server connects, so the resolver is the one in use. Literal
// forbidden addresses and metadata names are refused before resolution.
func TestTransportRefusesBeforeConnect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	resolver = fakeDNS(t, map[string]string{
		"evil.test.":                "169.254.169.254",
		"good.test.":                "127.0.0.1",
		"metadata.google.internal.": "127.0.0.1",
		"link-local-alias.test.":    "169.254.1.1",
	})
	defer func() { resolver = nil }()
	c := &http.Client{Transport: Transport("https://mcp.example.com/mcp")}
	defer c.CloseIdleConnections()
	for _, u := range []string{
		"http://evil.test:" + port + "/",
		"http://link-local-alias.test:" + port + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://[fe80::1]:" + port + "/",
		"http://[fd00:ec2::254]/",
		"http://metadata.google.internal:" + port + "/computeMetadata/v1/",
	} {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("GET %s = %v, want ErrForbiddenAddress before any connection", u, err)
		}
	}
	resp, err := c.Get("http://good.test:" + port + "/")
	if err != nil {
		t.Fatalf("GET good.test = %v, want the loopback server", err)
	}
	resp.Body.Close()

	// A server that is itself on a metadata host may send its login there.
	c2 := &http.Client{Transport: Transport("http://metadata.google.internal/mcp")}
	defer c2.CloseIdleConnections()
	resp, err = c2.Get("http://metadata.google.internal:" + port + "/")
	if err != nil {
		t.Fatalf("GET metadata.google.internal for a server there = %v, want it allowed", err)
	}
	resp.Body.Close()
}

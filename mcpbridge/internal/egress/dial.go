package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress is the error of a request to a link-local or
// cloud-metadata address (see [Forbidden]).
var ErrForbiddenAddress = errors.New("link-local or cloud metadata address")

// metadataAddrs are cloud instance-metadata services outside the
// link-local ranges: AWS's IPv6 endpoint and Alibaba Cloud's.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
}

// metadataNames are host names of instance-metadata services, refused
// before they are resolved.
var metadataNames = []string{
	"metadata.google.internal",
	"metadata.goog",
	"metadata",
	"instance-data",
	"instance-data.ec2.internal",
}

// Forbidden reports whether ip is link-local (169.254.0.0/16, fe80::/10,
// and the link-local multicast groups) or a cloud metadata address
// (169.254.169.254 and the others of AWS, GCP and Azure, which are
// link-local; fd00:ec2::254; 100.100.100.200). IPv4-mapped IPv6 addresses
// count as their IPv4 address.
func Forbidden(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() {
		return true
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return true
		}
	}
	return false
}

// ForbiddenHost reports whether host (a URL's host name, without port) is
// a metadata host name or an address [Forbidden] refuses.
func ForbiddenHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, n := range metadataNames {
		if host == n {
			return true
		}
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && Forbidden(ip.WithZone(""))
}

// Transport returns a clone of http.DefaultTransport that connects to no
// address [Forbidden] refuses and sends no request to a host
// [ForbiddenHost] refuses (the error wraps [ErrForbiddenAddress]), unless the server at serverURL is itself on one
// (its URL names such a host literally). The check on the address runs in
// the dialer's Control hook, after name resolution and before the
// connection is attempted, so a name that resolves to a forbidden address
// is refused as well. With a proxy from the environment, only the host
// names of requests can be checked.
func Transport(serverURL string) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Resolver: resolver}
	if u, err := url.Parse(serverURL); err == nil && ForbiddenHost(u.Hostname()) {
		t.DialContext = d.DialContext
		return t
	}
	d.Control = control
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, err := net.SplitHostPort(addr); err == nil && ForbiddenHost(host) {
			return nil, fmt.Errorf("dial %s: %w", addr, ErrForbiddenAddress)
		}
		return d.DialContext(ctx, network, addr)
	}
	return hostCheck{t}
}

// resolver resolves the names Transport dials; nil means the default.
// Tests set it to a DNS server of their own.
var resolver *net.Resolver

// hostCheck refuses a request whose URL names a forbidden host, which a
// proxy would otherwise resolve and connect to on our behalf.
type hostCheck struct{ base http.RoundTripper }

func (h hostCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	if ForbiddenHost(req.URL.Hostname()) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("%s %s: %w", req.Method, OriginOf(req.URL), ErrForbiddenAddress)
	}
	return h.base.RoundTrip(req)
}

// control refuses a connection to a forbidden address before it is made.
func control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: unparsable address: %w", address, ErrForbiddenAddress)
	}
	if Forbidden(ap.Addr()) {
		return fmt.Errorf("dial %s: %w", address, ErrForbiddenAddress)
	}
	return nil
}

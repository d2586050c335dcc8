package ui

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// An empty Host (HTTP/1.0 sends none) is refused too.
func TestServeRefusesEmptyHost(t *testing.T) {
	g := newHostGuard(http.NotFoundHandler(), "127.0.0.1", &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 3006})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/", nil)
	req.Host = ""
	g.ServeHTTP(rec, req)
	if rec.Code != http.StatusMisdirectedRequest {
		t.Errorf("empty Host: %d, want 421", rec.Code)
	}
}

func TestHostGuardNamesTheBoundAddress(t *testing.T) {
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 3006} }
	cases := []struct {
		addrHost string
		bound    net.Addr
		ok, no   []string
	}{
		{"127.0.0.1", tcp("127.0.0.1"),
			[]string{"127.0.0.1:3006", "localhost:3006", "localhost.:3006", "[::1]:3006", "127.0.0.1"},
			[]string{"evil.example:3006", "192.168.1.9:3006", "localhost.evil.example", "", ":3006", "[fe80::1%25lo]:3006"}},
		{"localhost", tcp("127.0.0.1"),
			[]string{"localhost:3006", "127.0.0.1:3006"},
			[]string{"evil.example:3006"}},
		{"::1", tcp("::1"),
			[]string{"[::1]:3006", "localhost:3006"},
			[]string{"evil.example:3006"}},
		{"192.168.1.9", tcp("192.168.1.9"),
			[]string{"192.168.1.9:3006"},
			[]string{"localhost:3006", "127.0.0.1:3006", "evil.example:3006", "192.168.1.10:3006"}},
		{"ci-box.lan", tcp("192.168.1.9"),
			[]string{"ci-box.lan:3006", "CI-BOX.LAN.:3006", "192.168.1.9:3006"},
			[]string{"evil.example:3006", "ci-box.lan.evil.example:3006"}},
		{"0.0.0.0", tcp("0.0.0.0"),
			[]string{"localhost:3006", "127.0.0.1:3006"},
			[]string{"evil.example:3006", "203.0.113.77:3006"}},
	}
	for _, c := range cases {
		g := newHostGuard(nil, c.addrHost, c.bound)
		for _, h := range c.ok {
			if !g.allowed(h) {
				t.Errorf("bound to %s (--addr host %q): Host %q refused, want served", c.bound, c.addrHost, h)
			}
		}
		for _, h := range c.no {
			if g.allowed(h) {
				t.Errorf("bound to %s (--addr host %q): Host %q served, want 421", c.bound, c.addrHost, h)
			}
		}
	}
}

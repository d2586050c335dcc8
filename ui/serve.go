package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/assay-eval/assay/internal/httpserve"

	"github.com/assay-eval/assay/harness"
)

// Serve listens on addr (host:port; port 0 picks a free one) and serves h
// with the connection bounds l (httpserve.NewServer) until ctx is done,
// then shuts down, giving requests in flight 5 s. listening, when not
// nil, is called with the address once it is bound. A malformed addr is a
// harness Usage error, one that cannot be bound an Input error.
//
// Only requests whose Host names the address bound are served (hostGuard);
// any other Host gets 421 Misdirected Request, so a web page the user
// visits cannot read the UI by pointing a name of its own at the
// address (DNS rebinding).
func Serve(ctx context.Context, addr string, h http.Handler, l httpserve.ServeLimits, listening func(net.Addr)) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &harness.Error{Kind: harness.Usage, Err: fmt.Errorf("--addr %q: %v", addr, err), Hint: "--addr 127.0.0.1:3006"}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &harness.Error{Kind: harness.Input, Err: fmt.Errorf("--addr %q: %v", addr, httpserve.ListenReason(err))}
	}
	srv := httpserve.NewServer(newHostGuard(h, host, ln.Addr()), l)
	if listening != nil {
		listening(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(httpserve.LimitListener(ln, l.MaxConns)) }()
	select {
	case err := <-errc:
		return &harness.Error{Kind: harness.Input, Err: fmt.Errorf("ui: %v", err)}
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return &harness.Error{Kind: harness.Input, Err: fmt.Errorf("ui: shutdown: %v", err)}
	}
	return nil
}

// hostGuard serves h only to requests whose Host header names the
// address the UI is bound to: the host of --addr as given (a name or an
// IP), the IP bound, and for a loopback bind localhost and every loopback
// IP (127.0.0.1, [::1]). A bind to every interface (0.0.0.0, ::, an empty
// host) also answers to each IP of the machine's interfaces. The port is
// not compared: a page of another origin reaches the UI's port only by a
// name that resolves to the machine, which is what is refused. Anything
// else, an empty Host included, is 421 Misdirected Request with a page
// that names nothing.
type hostGuard struct {
	h     http.Handler
	names map[string]bool // lower case, without a trailing dot
	bound net.IP
	local []net.IP // for a bind to every interface
}

func newHostGuard(h http.Handler, addrHost string, bound net.Addr) *hostGuard {
	g := &hostGuard{h: h, names: map[string]bool{}}
	if n := hostName(addrHost); n != "" && net.ParseIP(n) == nil {
		g.names[n] = true
	}
	if ta, ok := bound.(*net.TCPAddr); ok {
		g.bound = ta.IP
	}
	switch {
	case g.bound == nil:
	case g.bound.IsLoopback():
		g.names["localhost"] = true
	case g.bound.IsUnspecified():
		g.names["localhost"] = true
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if ipn, ok := a.(*net.IPNet); ok {
					g.local = append(g.local, ipn.IP)
				}
			}
		}
	}
	return g
}

// hostName is the host of a Host header (or of --addr): without its port
// and brackets, lower case, without a trailing dot.
func hostName(hostport string) string {
	h := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		h = hh
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// allowed reports whether the Host header host names the bound address.
func (g *hostGuard) allowed(host string) bool {
	n := hostName(host)
	if n == "" {
		return false
	}
	if g.names[n] {
		return true
	}
	ip := net.ParseIP(n)
	if ip == nil || g.bound == nil {
		return false
	}
	switch {
	case ip.Equal(g.bound):
		return true
	case g.bound.IsLoopback():
		return ip.IsLoopback()
	case g.bound.IsUnspecified():
		if ip.IsLoopback() {
			return true
		}
		for _, l := range g.local {
			if ip.Equal(l) {
				return true
			}
		}
	}
	return false
}

func (g *hostGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.allowed(r.Host) {
		for k, v := range securityHeaders {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusMisdirectedRequest)
		io.WriteString(w, "421 misdirected request: this assay UI answers only to the address it listens on (open the address assay ui printed)\n")
		return
	}
	g.h.ServeHTTP(w, r)
}

// Package httpserve holds the connection bounds of assay's HTTP servers
// (assay serve, assay ui): timeouts, a header size and a limit on open
// connections, and the reason a listen failed.
package httpserve

import (
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// ServeLimits bound each connection of a server (assay serve), so that slow or
// unfinished clients cannot hold its file descriptors: a client has Header
// to send its request headers, Read for the whole request (headers and
// body), Write for the response, and Idle between keep-alive requests; a
// body is at most 1 MiB (the builtin handler's MaxBytesReader) and headers
// at most MaxHeader bytes. At most MaxConns connections are open at once;
// more wait in the kernel's accept queue until one closes.
type ServeLimits struct {
	Header, Read, Write, Idle time.Duration
	MaxHeader                 int
	MaxConns                  int
}

// DefaultServeLimits are the bounds of assay serve.
var DefaultServeLimits = ServeLimits{
	Header:    10 * time.Second,
	Read:      30 * time.Second,
	Write:     60 * time.Second,
	Idle:      60 * time.Second,
	MaxHeader: 64 << 10,
	MaxConns:  512,
}

// NewServer is an http.Server for h within the limits l (but MaxConns:
// see LimitListener).
func NewServer(h http.Handler, l ServeLimits) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.Header,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
		MaxHeaderBytes:    l.MaxHeader,
	}
}

// LimitListener accepts at most n connections at once (n <= 0: no cap).
func LimitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		return ln
	}
	return &limitedListener{Listener: ln, sem: make(chan struct{}, n)}
}

type limitedListener struct {
	net.Listener
	sem chan struct{}
}

func (l *limitedListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.sem }}, nil
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// ListenReason is why net.Listen failed, without the Go operation names
// ("listen tcp: lookup tcp/http2x: unknown port" is "unknown port").
func ListenReason(err error) error {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return errors.New(dns.Err)
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		var sys *os.SyscallError
		if errors.As(op.Err, &sys) {
			return sys.Err // "address already in use", "permission denied"
		}
		return op.Err
	}
	return err
}

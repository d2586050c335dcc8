package ui

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/assay-eval/assay/store"
)

//go:embed templates/*.html assets/*
var files embed.FS

// Options adjust the server. The zero value is the default.
type Options struct {
	// PageSize is the number of case rows per page of the run page
	// (DefaultPageSize when 0).
	PageSize int
	// HistoryRuns is the number of runs of the history grid when the URL
	// does not say (DefaultHistoryRuns when 0).
	HistoryRuns int
}

// Defaults of Options.
const (
	DefaultPageSize    = 100
	DefaultHistoryRuns = 10
	maxHistoryRuns     = 50
)

func (o Options) withDefaults() Options {
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.HistoryRuns <= 0 {
		o.HistoryRuns = DefaultHistoryRuns
	}
	return o
}

// securityHeaders go with every response: no script may run (the pages
// have none), nothing is loaded from another origin, and no page can be
// framed.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options":  "nosniff",
	"Referrer-Policy":         "no-referrer",
	"X-Frame-Options":         "DENY",
}

type server struct {
	src  *source
	opts Options
	mux  *http.ServeMux
}

// New returns the read-only web UI over st (see the package
// documentation for its pages and URLs). It answers GET and HEAD only
// (405 with an Allow header for any other method) and never writes to
// the store.
func New(st store.Store, o Options) http.Handler {
	s := &server{src: newSource(st), opts: o.withDefaults(), mux: http.NewServeMux()}
	assets, _ := fs.Sub(files, "assets")
	s.mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	s.mux.HandleFunc("GET /{$}", s.page(s.runsPage))
	s.mux.HandleFunc("GET /run/{id}", s.page(s.runPage))
	s.mux.HandleFunc("GET /run/{id}/case/{case...}", s.page(s.casePage))
	s.mux.HandleFunc("GET /compare", s.page(s.comparePage))
	s.mux.HandleFunc("GET /compare/case", s.page(s.compareCasePage))
	s.mux.HandleFunc("GET /history", s.page(s.historyPage))
	return s
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range securityHeaders {
		w.Header().Set(k, v)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed: the assay UI is read-only (GET and HEAD only)", http.StatusMethodNotAllowed)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// httpError is an error with its status code.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// page adapts a page builder: it renders the template the builder names
// with its data, or an error page.
func (s *server) page(build func(context.Context, *http.Request) (string, any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, data, err := build(r.Context(), r)
		var buf bytes.Buffer
		if err == nil {
			err = render(&buf, name, serverLinks{}, data)
		}
		if err != nil {
			code := http.StatusInternalServerError
			var he *httpError
			switch {
			case errors.As(err, &he):
				code = he.code
			case errors.Is(err, store.ErrNotFound):
				code = http.StatusNotFound
			case errors.Is(err, store.ErrAmbiguous):
				code = http.StatusBadRequest
			}
			buf.Reset()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(code)
			render(&buf, "error", serverLinks{}, errorPage{Code: code, Message: err.Error()})
			w.Write(buf.Bytes())
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
		w.Write(buf.Bytes())
	}
}

type errorPage struct {
	Code    int
	Message string
}

// intParam reads a positive integer query parameter (def when absent).
func intParam(r *http.Request, name string, def int) (int, error) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, badRequest("%s=%q: want a whole number of at least 1", name, v)
	}
	return n, nil
}

// Loopback reports whether the listen address addr (host:port) binds to
// loopback only: localhost or a loopback IP. An empty host binds to every
// interface and is not loopback.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

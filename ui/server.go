package ui

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

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
	// ErrorLog, when set, gets the detail of each error a page could not
	// show: a page that fails for another reason than a bad URL says only
	// that it failed, never a path or a system's message (nil: dropped).
	ErrorLog io.Writer
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
	src   *source
	opts  Options
	mux   *http.ServeMux
	logMu sync.Mutex
}

// New returns the read-only web UI over st (see the package
// documentation for its pages and URLs). It answers GET and HEAD only
// (405 with an Allow header for any other method) and never writes to
// the store. A REF in its URLs is a run of st only (uiRef), never a path.
// New does not check the Host of a request: Serve does, so a caller that
// serves New with its own server must check it too.
func New(st Store, o Options) http.Handler {
	src := newSource(st)
	src.strict = true
	s := &server{src: src, opts: o.withDefaults(), mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /assets/{name}", serveAsset)
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
		name, data, err := build(withResolved(r.Context()), r)
		var buf bytes.Buffer
		if err == nil {
			err = render(&buf, name, serverLinks{}, data)
		}
		if err != nil {
			code, msg := s.failure(r, err)
			buf.Reset()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(code)
			render(&buf, "error", serverLinks{}, errorPage{Code: code, Message: msg})
			w.Write(buf.Bytes())
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
		w.Write(buf.Bytes())
	}
}

// failure is the status and the message of the error page for err. Only
// the UI's own messages (httpError: a bad parameter, a REF that names no
// run, a case not in the run) are shown; any other error may hold a path
// or a message of the store or the system, so the page says only that
// the page could not be read, and the detail goes to Options.ErrorLog.
func (s *server) failure(r *http.Request, err error) (int, string) {
	var he *httpError
	if errors.As(err, &he) {
		return he.code, he.msg
	}
	if s.opts.ErrorLog != nil {
		s.logMu.Lock()
		fmt.Fprintf(s.opts.ErrorLog, "assay: ui: GET %q: %v\n", r.URL.RequestURI(), err)
		s.logMu.Unlock()
	}
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return http.StatusNotFound, "not found: this store has no such run or case"
	}
	return http.StatusInternalServerError, "this page could not be read from the store (the terminal running assay ui says why)"
}

// serveAsset serves one embedded file of assets/ by name; anything else,
// a directory included, is 404 (no listing).
func serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	b, err := fs.ReadFile(files, "assets/"+name)
	if !fs.ValidPath(name) || strings.Contains(name, "/") || err != nil {
		http.NotFound(w, r)
		return
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
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

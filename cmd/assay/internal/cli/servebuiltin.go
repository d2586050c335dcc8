package cli

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

	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/target"
)

// ServePlan is `assay serve`: the built-in engine over a suite's corpus
// as an HTTP service.
type ServePlan struct {
	SuitePath, Split string
	// Target is the engine variant: builtin, builtin:rm3, or either with
	// ?k1=..&b=.. (no other kind).
	Target string
	// Addr is the host:port to listen on (port 0 picks a free one).
	Addr   string
	Limits httpserve.ServeLimits
	// Log gets the address served on, the engine, and "stopped".
	Log io.Writer
}

// ServeBuiltin serves p until ctx is done, then shuts the server down
// (waiting at most 5 s for the requests in flight). A target that is not
// the built-in engine and an address that is not host:port are Usage
// errors; a suite with no corpus too.
func ServeBuiltin(ctx context.Context, p ServePlan) error {
	if p.Target != "builtin" && !strings.HasPrefix(p.Target, "builtin:") && !strings.HasPrefix(p.Target, "builtin?") {
		return usageError("assay serve --target builtin:rm3", "--target %q: assay serve serves the built-in engine only (valid: builtin, builtin:rm3)", p.Target)
	}
	if _, _, err := net.SplitHostPort(p.Addr); err != nil {
		return usageError("assay serve SUITE --addr 127.0.0.1:8088", "--addr %q: %v", p.Addr, err)
	}
	s, err := suite.LoadWith(p.SuitePath, suite.LoadOptions{Split: p.Split})
	if err != nil {
		return inputError(err)
	}
	if len(s.Corpus) == 0 {
		return usageError("add corpus: to the suite", "suite %s has no corpus: assay serve has nothing to serve", s.Name)
	}
	b, err := target.NewBuiltin(p.Target, s)
	if err != nil {
		return inputError(err)
	}
	ln, err := net.Listen("tcp", p.Addr)
	if err != nil {
		return inputError(fmt.Errorf("--addr %q: %v", p.Addr, httpserve.ListenReason(err)))
	}
	srv := httpserve.NewServer(b.Handler(), p.Limits)
	ln = httpserve.LimitListener(ln, p.Limits.MaxConns)
	fmt.Fprintf(p.Log, "assay: serving on http://%s\n", ln.Addr())
	fmt.Fprintf(p.Log, "assay: %d documents, engine %s; POST /search, POST /ask, GET /healthz\n", b.Index().Len(), b.Describe().Versions["engine"])
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return inputError(fmt.Errorf("serve: %v", err))
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return inputError(fmt.Errorf("shutdown: %v", err))
	}
	fmt.Fprintln(p.Log, "assay: stopped")
	return nil
}

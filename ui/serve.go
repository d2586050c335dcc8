package ui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
)

// Serve listens on addr (host:port; port 0 picks a free one) and serves h
// with the connection bounds l (harness.NewServer) until ctx is done,
// then shuts down, giving requests in flight 5 s. listening, when not
// nil, is called with the address once it is bound. A malformed addr is a
// harness Usage error, one that cannot be bound an Input error.
func Serve(ctx context.Context, addr string, h http.Handler, l harness.ServeLimits, listening func(net.Addr)) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return harness.UsageError("--addr 127.0.0.1:3006", "--addr %q: %v", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return harness.InputError(fmt.Errorf("--addr %q: %v", addr, harness.ListenReason(err)))
	}
	srv := harness.NewServer(h, l)
	if listening != nil {
		listening(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(harness.LimitListener(ln, l.MaxConns)) }()
	select {
	case err := <-errc:
		return harness.InputError(fmt.Errorf("ui: %v", err))
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return harness.InputError(fmt.Errorf("ui: shutdown: %v", err))
	}
	return nil
}

// WriteResult is `assay run --html DIR`: the static report (WriteStatic)
// of each run of res, read back from the store p recorded it in (p.StoreDir
// with p.StoreOptions: a directory or a postgres:// URL), compared with the
// run it was compared with (baselineRef as given, when it is a path; else
// that run in the store). A matrix writes one report per variant, into
// DIR/<short run id>. It returns the index.html files written; with dir ""
// it writes nothing.
func WriteResult(ctx context.Context, dir string, p harness.Plan, res *harness.Result, baselineRef string) ([]string, error) {
	var out []string
	if dir == "" || res == nil || len(res.Runs) == 0 {
		return nil, nil
	}
	o := p.StoreOptions
	o.ForReading = true
	st, err := harness.OpenStore(p.StoreDir, o)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	for i, run := range res.Runs {
		d, base := dir, ""
		if len(res.Runs) > 1 {
			d = filepath.Join(dir, harness.ShortID(run.RunID))
		}
		if i < len(res.Baselines) && res.Baselines[i] != nil {
			base = res.Baselines[i].RunID
			if store.IsPathRef(baselineRef) && len(res.Runs) == 1 {
				base = baselineRef
			}
		}
		files, err := WriteStatic(ctx, d, st, run.RunID, base)
		if err != nil {
			return out, err
		}
		out = append(out, files[0])
	}
	return out, nil
}

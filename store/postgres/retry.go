package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/assay-eval/assay/internal/retry"
	"github.com/jackc/pgx/v5/pgconn"
)

// RetryWindow is how long a store that has connected keeps retrying an
// operation that failed because the connection did (the server restarted,
// a failover moved the primary, the network dropped): with jittered
// backoff from 50 ms up to 2 s between attempts, for this long from the
// first failure. Opening a store is not retried, so a wrong URL fails at
// once.
const RetryWindow = 30 * time.Second

// retry calls fn (attempt 0, 1, ...) until it succeeds, fails with an
// error that is not transient, ctx ends, or RetryWindow has passed. fn
// must be safe to call again: each attempt is a statement or transaction
// of its own, and attempt > 0 tells it that an earlier one may have
// committed without the answer arriving.
func (s *Store) retry(ctx context.Context, fn func(attempt int) error) error {
	var deadline time.Time
	for attempt := 0; ; attempt++ {
		err := fn(attempt)
		if err == nil || !transient(err) || ctx.Err() != nil {
			return err
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(RetryWindow)
		}
		d := retry.Backoff(50*time.Millisecond, 2*time.Second, attempt)
		if time.Now().Add(d).After(deadline) {
			return fmt.Errorf("%w (the database stayed unreachable for %s)", err, RetryWindow)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
}

// transient reports whether err is a lost or refused connection, or the
// server shutting down or starting up: what a restart or a failover looks
// like from a client, and worth trying again on a new connection.
func transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case len(pe.Code) == 5 && pe.Code[:2] == "08": // connection_exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return true
		case pe.Code == "25006": // read_only_sql_transaction: a standby that is being promoted
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || isClosedConn(err)
}

// isClosedConn is pgx's error for a statement on a connection it had
// already found broken.
func isClosedConn(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "conn closed" {
			return true
		}
	}
	return false
}

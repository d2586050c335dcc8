package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/assay-eval/assay/store"
	"github.com/jackc/pgx/v5"
)

// A run being written holds a session advisory lock keyed by its id (and
// the schema) on a connection of its own, outside the pool, from Begin
// until Finish (or until the process ends: the server drops the lock with
// the connection). Delete takes the same lock, without waiting, in its
// transaction: a run whose lock is held is being written and is not
// deleted (store.ErrInProgress). When the lock's connection breaks (a
// server restart), the keeper reconnects and takes it again.

const runLockPrefix = "assay.run:"

// lockEvery is how often the keeper checks the lock's connection.
const lockEvery = 2 * time.Second

type runLock struct {
	s    *Store
	key  string
	mu   sync.Mutex
	conn *pgx.Conn
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func (s *Store) runKey(id string) string { return runLockPrefix + *s.schema + ":" + id }

// lockRun takes the lock of run id on a new connection and starts its
// keeper.
func (s *Store) lockRun(ctx context.Context, id string) (*runLock, error) {
	l := &runLock{s: s, key: s.runKey(id), stop: make(chan struct{}), done: make(chan struct{})}
	err := s.retry(ctx, func(int) error { return l.connect(ctx) })
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.locks[l] = true
	s.mu.Unlock()
	go l.keep()
	return l, nil
}

func (l *runLock) connect(ctx context.Context) error {
	c, err := pgx.ConnectConfig(ctx, l.s.connCfg.Copy())
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, l.key); err != nil {
		c.Close(context.Background())
		return err
	}
	l.mu.Lock()
	l.conn = c
	l.mu.Unlock()
	return nil
}

// keep checks the connection every lockEvery and, when it broke, takes
// the lock again on a new one, until release.
func (l *runLock) keep() {
	defer close(l.done)
	t := time.NewTicker(lockEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		c := l.conn
		l.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), lockEvery)
		err := c.Ping(ctx)
		cancel()
		if err == nil {
			continue
		}
		c.Close(context.Background())
		ctx, cancel = context.WithTimeout(context.Background(), lockEvery)
		l.connect(ctx) // failing, it is tried again at the next tick
		cancel()
	}
}

// release stops the keeper and closes the connection, which gives up the
// lock.
func (l *runLock) release() {
	l.s.mu.Lock()
	delete(l.s.locks, l)
	l.s.mu.Unlock()
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.conn != nil {
			// Unlocked first: the server drops a closed session's locks
			// only once its backend has gone, a moment later.
			ctx, cancel := context.WithTimeout(context.Background(), lockEvery)
			l.conn.Exec(ctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, l.key)
			cancel()
			l.conn.Close(context.Background())
			l.conn = nil
		}
	})
}

var _ store.ProgressReporter = (*Store)(nil)

// InProgress implements store.ProgressReporter: whether a live writer
// holds the run's lock (tried without waiting, and let go at once).
func (s *Store) InProgress(ctx context.Context, runID string) bool {
	held := false
	err := s.retry(ctx, func(int) error {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		var free bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))`, s.runKey(runID)).Scan(&free); err != nil {
			return err
		}
		held = !free
		return nil
	})
	return err == nil && held
}

// Package retry holds the two rules every HTTP client of assay waits by (the
// targets' http client and the model endpoints' client in package llm): how
// long a Retry-After header asks for, and the jittered exponential backoff
// between attempts. The Postgres store waits by the same backoff between
// attempts on a lost connection.
package retry

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxAfter caps what a Retry-After header can ask for: a server that asks
// for an hour is waited for a minute (and a wait past the caller's
// deadline is not started at all, by the callers).
const MaxAfter = 60 * time.Second

// After reads a Retry-After header value, delay-seconds or an HTTP date,
// capped at MaxAfter; 0 when it is absent, malformed, zero, negative or a
// date in the past. A huge number of seconds does not overflow.
func After(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s <= 0 {
			return 0
		}
		return min(time.Duration(min(s, 1<<20))*time.Second, MaxAfter)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return min(d, MaxAfter)
		}
	}
	return 0
}

// Backoff is the wait before retry number attempt+1: base doubled attempt
// times, capped at most (and never overflowing), then jittered uniformly
// within its upper half so that clients that failed together do not
// retry together.
func Backoff(base, most time.Duration, attempt int) time.Duration {
	d := base << min(attempt, 30)
	if d > most || d <= 0 {
		d = most
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

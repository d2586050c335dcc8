package retry

import (
	"net/http"
	"testing"
	"time"
)

func TestAfter(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{
		"3": 3 * time.Second, " 7 ": 7 * time.Second, "": 0, "0": 0, "-5": 0, "soon": 0,
		"3600": MaxAfter, "99999999999999": MaxAfter, // capped, no overflow
		time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat): 0,
	} {
		if got := After(v); got != want {
			t.Errorf("After(%q) = %s, want %s", v, got, want)
		}
	}
	date := time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)
	if d := After(date); d < 8*time.Second || d > 10*time.Second {
		t.Errorf("After(%q) = %s, want about 10s", date, d)
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	base, most := 100*time.Millisecond, time.Second
	for attempt, full := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second} {
		for range 50 {
			if d := Backoff(base, most, attempt); d < full/2 || d > full {
				t.Fatalf("Backoff(attempt %d) = %s, want within [%s, %s]", attempt, d, full/2, full)
			}
		}
	}
	if d := Backoff(base, most, 1000); d < most/2 || d > most {
		t.Fatalf("a huge attempt: %s, want the cap's range", d)
	}
}

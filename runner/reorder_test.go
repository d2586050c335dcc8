package runner

import (
	"math/rand/v2"
	"testing"
)

// TestReorderEmitsInSequence: observations that finish in any order
// within the window come out of the reorder buffer in sequence, each
// once, however far the ring had to grow.
func TestReorderEmitsInSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, window := range []int{1, 3, 8, 100, 1024} {
		const n = 5000
		var r reorder[int]
		next, sent := 0, 0
		inFlight := []int{}
		var got []int
		for next < n {
			// Send while the window has room, then finish one.
			for sent < n && sent-next < window {
				inFlight = append(inFlight, sent)
				sent++
			}
			// Mostly the oldest, so that the next to emit moves on while
			// the span behind a slow one widens and the ring grows.
			k := 0
			if rng.IntN(4) == 0 {
				k = rng.IntN(len(inFlight))
			}
			seq := inFlight[k]
			inFlight = append(inFlight[:k], inFlight[k+1:]...)
			r.put(seq, next, seq*10)
			for {
				v, ok := r.take(next)
				if !ok {
					break
				}
				got = append(got, v)
				next++
			}
		}
		for i, v := range got {
			if v != i*10 {
				t.Fatalf("window %d: result %d is %d, want %d", window, i, v, i*10)
			}
		}
		if len(got) != n || len(r.ring) > 2*window+8 {
			t.Errorf("window %d: %d results, ring of %d", window, len(got), len(r.ring))
		}
		if _, ok := r.take(next); ok {
			t.Errorf("window %d: took %d, never put", window, next)
		}
	}
}

// TestReorderGrowKeepsWhatItHolds: when the ring grows, an observation
// held past the old ring's length is found at its place in the new one.
func TestReorderGrowKeepsWhatItHolds(t *testing.T) {
	var r reorder[int]
	r.put(9, 4, 90)   // a ring of 8: slot 1 (of 16: slot 9)
	r.put(6, 4, 60)   // slot 6 in both
	r.put(13, 4, 130) // 9 past the next to emit: the ring grows to 16
	if len(r.ring) != 16 {
		t.Fatalf("ring of %d, want 16", len(r.ring))
	}
	for _, seq := range []int{6, 9, 13} {
		if v, ok := r.take(seq); !ok || v != seq*10 {
			t.Errorf("take %d: %d %v", seq, v, ok)
		}
	}
}

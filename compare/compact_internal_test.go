package compare

import (
	"testing"

	"github.com/assay-eval/assay"
)

// TestCompactRatesAgree: each rate reads a case in compact form as it
// reads the full result, for every combination of the facts it reads.
func TestCompactRatesAgree(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, pass := range []*bool{nil, &yes, &no} {
		for _, errored := range []bool{false, true} {
			for _, refused := range []bool{false, true} {
				for _, retrieved := range []int{0, 3} {
					for _, citations := range []int{0, 2} {
						r := assay.CaseResult{ID: "q", Pass: pass, Refused: refused, Retrieved: retrieved, Citations: citations}
						if errored {
							r.Error = &assay.Error{Class: "timeout"}
						}
						c := CompactOf(&assay.Run{Cases: []assay.CaseResult{r}})
						for _, rt := range rates {
							v, ok := rt.value(&r)
							cv, cok := rt.cvalue(c.at(0))
							if v != cv || ok != cok {
								t.Errorf("%s of %+v: compact (%v, %v), full (%v, %v)", rt.name, r, cv, cok, v, ok)
							}
						}
					}
				}
			}
		}
	}
}

// TestCompactReadsEveryFact: a case's metrics (past the 64 the bit mask
// holds too), tags, hash, latency, top score, cost and refusal check read
// back as the full result has them.
func TestCompactReadsEveryFact(t *testing.T) {
	t.Parallel()
	lat, top, cost := 12.5, 3.25, 0.002
	r := assay.CaseResult{ID: "q1", Trial: 2, LatencyMs: &lat, TopScore: &top,
		Usage:   &assay.Usage{InputTokens: 10, OutputTokens: 5, CostUSD: &cost},
		Tags:    map[string]string{"lang": "de", "doc": "d7"},
		Checks:  []assay.Check{{Kind: "answer", Pass: false}, {Kind: "refusal", Pass: true}},
		Metrics: map[string]float64{}}
	names := []string{}
	for i := range 70 {
		n := "m" + string(rune('A'+i/26)) + string(rune('a'+i%26))
		names = append(names, n)
		r.Metrics[n] = float64(i) / 10
	}
	c := &Compact{}
	c.Add(&assay.CaseResult{ID: "q0", Metrics: map[string]float64{"mAa": 9}}) // another case first
	c.Add(&r)
	for i, n := range names {
		if v, ok := c.metric(1, c.metricIndex(n)); !ok || v != float64(i)/10 {
			t.Errorf("metric %s = %v, %v; want %v", n, v, ok, float64(i)/10)
		}
	}
	if v, ok := c.metric(0, c.metricIndex("mAa")); !ok || v != 9 {
		t.Errorf("first case's mAa = %v, %v", v, ok)
	}
	if _, ok := c.metric(0, c.metricIndex("mBa")); ok {
		t.Error("first case has a metric it was not given")
	}
	if _, ok := c.metric(1, c.metricIndex("absent")); ok {
		t.Error("a metric no case has was found")
	}
	n := 0
	c.eachMetric(1, func(int32) { n++ })
	if n != 70 {
		t.Errorf("eachMetric saw %d metrics, want 70", n)
	}
	for k, want := range r.Tags {
		if v, ok := c.tag(1, k); !ok || v != want {
			t.Errorf("tag %s = %q, %v", k, v, ok)
		}
	}
	if _, ok := c.tag(0, "lang"); ok {
		t.Error("the first case has a tag it was not given")
	}
	cc := c.at(1)
	if cc.id != "q1" || cc.trial != 2 || !cc.is(fLatency) || cc.latency != lat || !cc.is(fTop) || cc.top != top ||
		!cc.is(fUsage) || !cc.is(fCost) || cc.cost != cost || cc.tokens != 15 || !cc.is(fRefusalPass) {
		t.Errorf("case read back as %+v", *cc)
	}
	if c.at(0).is(fLatency | fTop | fUsage | fCost | fRefusalPass) {
		t.Errorf("first case read back as %+v", *c.at(0))
	}
}

// TestCompactHashes: two hashes are the same exactly when their strings
// are, whether package grade's form or any other.
func TestCompactHashes(t *testing.T) {
	t.Parallel()
	sha := "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	upper := "sha256:" + "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"
	other := "sha256:" + "1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	hs := []string{"", sha, upper, other, "v1", "v2", "sha256:zz"}
	b, c := &Compact{}, &Compact{}
	for _, h := range hs {
		b.Add(&assay.CaseResult{ID: "q", Hash: h})
		c.Add(&assay.CaseResult{ID: "q", Hash: h})
	}
	for i, x := range hs {
		if b.hasHash(i) != (x != "") {
			t.Errorf("hasHash(%q) = %v", x, b.hasHash(i))
		}
		for j, y := range hs {
			if x == "" || y == "" {
				continue
			}
			if got := sameHash(b, i, c, j); got != (x == y) {
				t.Errorf("sameHash(%q, %q) = %v", x, y, got)
			}
		}
	}
}

package target

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

const stubAnswer = `{"answer": "The kettle is descaled once a month with citric acid.", "retrieved": [{"id": "kettle.md", "score": 3.2}, {"id": "tea.md", "score": 1.1}], "citations": [{"id": "kettle.md"}], "refused": false}`

// stub answers every request with stubAnswer after latency, recording how
// long it took itself.
type stub struct {
	latency time.Duration
	mu      sync.Mutex
	took    []float64
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	io.Copy(io.Discard, r.Body)
	if s.latency > 0 {
		time.Sleep(s.latency)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Docs", "kettle.md,tea.md")
	io.WriteString(w, stubAnswer)
	if s.latency > 0 {
		d := float64(time.Since(start).Microseconds()) / 1000
		s.mu.Lock()
		s.took = append(s.took, d)
		s.mu.Unlock()
	}
}

// observeAll observes n cases with 4 workers and returns the latencies.
func observeAll(b *testing.B, tg assay.Target, n int) []float64 {
	lat := make([]float64, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				o, err := tg.Observe(context.Background(), assay.Case{ID: fmt.Sprintf("c%06d", i), Query: "how often is the kettle descaled", K: 10})
				if err != nil {
					b.Error(err)
					return
				}
				lat[i] = *o.LatencyMs
			}
		}()
	}
	wg.Wait()
	return lat
}

func nearestRank(v []float64, p float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(p*float64(len(s))+0.999999) - 1
	return s[max(0, min(len(s)-1, i))]
}

// BenchmarkHTTPObserve is the harness cost of one case against a stub that
// answers at once, four cases in flight (ns/op is wall time per case).
func BenchmarkHTTPObserve(b *testing.B) {
	for _, tc := range []struct{ name, file string }{
		{"shorthand", ""},
		{"file-mapped", "http:\n  url: URL\n  headers: {Authorization: \"Bearer ${TOKEN}\"}\n  body: {question: \"{{.Query}}\", k: \"{{.K}}\", id: \"{{.ID}}\"}\n  map: {answer: answer, retrieved: header:x-docs, citations: citations, refused: refused}\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := httptest.NewServer(&stub{})
			defer srv.Close()
			spec := srv.URL + "/ask"
			if tc.file != "" {
				p := b.TempDir() + "/t.yaml"
				os.WriteFile(p, []byte(replaceURL(tc.file, srv.URL+"/ask")), 0o644)
				spec = p
			}
			tg, err := Open(spec, Options{Getenv: env("TOKEN", testSecret)})
			if err != nil {
				b.Fatal(err)
			}
			defer Close(tg)
			b.ReportAllocs()
			b.SetParallelism(max(1, 4/runtime.GOMAXPROCS(0)))
			var i atomic.Int64
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					c := assay.Case{ID: fmt.Sprint(i.Add(1)), Query: "how often is the kettle descaled", K: 10}
					if _, err := tg.Observe(context.Background(), c); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func replaceURL(s, u string) string {
	out := ""
	for {
		i := indexOf(s, "URL")
		if i < 0 {
			return out + s
		}
		out += s[:i] + u
		s = s[i+3:]
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// BenchmarkHTTPLatency20ms runs 1,000 cases, four in flight, against a stub
// that takes 20 ms, and reports the wall time against the ideal
// (1,000 × the stub's mean / 4) and the p50/p95 assay measured against the
// stub's own. Run it with -benchtime=1x.
func BenchmarkHTTPLatency20ms(b *testing.B) {
	for range b.N {
		st := &stub{latency: 20 * time.Millisecond}
		srv := httptest.NewServer(st)
		tg, err := Open(srv.URL+"/ask", Options{})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		lat := observeAll(b, tg, 1000)
		wall := time.Since(start)
		Close(tg)
		srv.Close()
		var sum float64
		for _, v := range st.took {
			sum += v
		}
		ideal := 1000 * (20.0) / 4
		b.ReportMetric(wall.Seconds()*1000/ideal, "wall/ideal")
		b.ReportMetric(wall.Seconds()*1000/(sum/4), "wall/stub-sum")
		b.ReportMetric(nearestRank(lat, 0.50)-nearestRank(st.took, 0.50), "p50-delta-ms")
		b.ReportMetric(nearestRank(lat, 0.95)-nearestRank(st.took, 0.95), "p95-delta-ms")
	}
}

// BenchmarkHTTPMemory observes 100,000 cases and reports the live heap after
// 10,000 and after 100,000: the target keeps nothing per case, so the two
// are about the same. Run it with -benchtime=1x.
func BenchmarkHTTPMemory(b *testing.B) {
	for range b.N {
		srv := httptest.NewServer(&stub{})
		tg, err := Open(srv.URL+"/ask", Options{})
		if err != nil {
			b.Fatal(err)
		}
		heap := func() float64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return float64(m.HeapInuse) / (1 << 20)
		}
		observeAll(b, tg, 10_000)
		h10 := heap()
		for range 9 {
			observeAll(b, tg, 10_000)
		}
		h100 := heap()
		Close(tg)
		srv.Close()
		b.ReportMetric(h10, "heap-MiB@10k")
		b.ReportMetric(h100, "heap-MiB@100k")
	}
}

// BenchmarkCommandServe is one case exchanged with a long-lived serve
// process (the test binary as the reference system), two workers.
func BenchmarkCommandServe(b *testing.B) {
	exe, _ := os.Executable()
	p := b.TempDir() + "/t.yaml"
	os.WriteFile(p, []byte("command: {serve: ["+quoteYAML(exe)+"], workers: 2}\nenv: {ASSAY_TARGETTEST: serve}\n"), 0o644)
	tg, err := Open(p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer Close(tg)
	c := assay.Case{ID: "kettle", Query: "How often should a kettle be descaled?", K: 3}
	if _, err := tg.Observe(context.Background(), c); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := tg.Observe(context.Background(), c); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

package engine

import (
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/metric"
)

type quality map[string]float64

// evaluate runs every query and averages the named metrics over all of them
// (trec_eval -c).
func evaluate(t testing.TB, ix *Index, qs []benchQuery, k int, names ...string) quality {
	t.Helper()
	specs := make([]metric.Spec, len(names))
	for i, n := range names {
		s, err := metric.Parse(n)
		if err != nil {
			t.Fatal(err)
		}
		specs[i] = s
	}
	out := quality{}
	for _, q := range qs {
		res := ix.Search(Query{Text: q.Text, K: k})
		ranking := make([]string, len(res))
		for i, r := range res {
			ranking[i] = r.ID
		}
		for _, s := range specs {
			out[s.Name] += s.Eval(ranking, q.Judgments, metric.Options{})
		}
	}
	for n := range out {
		out[n] /= float64(len(qs))
	}
	return out
}

func buildOrFatal(t testing.TB, docs []assay.Document, o Options) *Index {
	t.Helper()
	ix, err := Build(docs, o)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestSciFactQuality checks the BEIR paper's BM25 figure as a floor and logs
// the figures docs/benchmarks.md records (go test -run SciFact -v ./engine).
func TestSciFactQuality(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("dataset test")
	}
	docs, qs := loadSciFact(t)
	if len(docs) != 5183 || len(qs) != 300 {
		t.Fatalf("scifact: %d docs, %d queries; want 5183, 300", len(docs), len(qs))
	}
	for _, v := range []struct {
		name string
		o    func(*Options)
		min  float64
	}{
		{"bm25", func(*Options) {}, 0.665},
		{"bm25-porter (Anserini)", func(o *Options) { o.Analyzer = "en-porter" }, 0.665},
		{"bm25+rm3", func(o *Options) { o.RM3 = true }, 0.64},
	} {
		o := DefaultOptions()
		v.o(&o)
		ix := buildOrFatal(t, docs, o)
		q := evaluate(t, ix, qs, 1000, "ndcg@10", "recall@100", "recall@1000", "map")
		t.Logf("scifact %-13s nDCG@10 %.4f  R@100 %.4f  R@1000 %.4f  MAP %.4f", v.name, q["ndcg@10"], q["recall@100"], q["recall@1000"], q["map"])
		if q["ndcg@10"] < v.min {
			t.Errorf("scifact %s: nDCG@10 = %.4f, want >= %.3f", v.name, q["ndcg@10"], v.min)
		}
	}
}

// TestCranfieldQuality logs MAP and nDCG@10 for BM25 and RM3.
func TestCranfieldQuality(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("dataset test")
	}
	docs, qs := loadCranfield(t)
	if len(docs) != 1400 || len(qs) != 225 {
		t.Fatalf("cranfield: %d docs, %d judged queries; want 1400, 225", len(docs), len(qs))
	}
	for _, rm3 := range []bool{false, true} {
		o := DefaultOptions()
		o.RM3 = rm3
		ix := buildOrFatal(t, docs, o)
		q := evaluate(t, ix, qs, 1000, "map", "ndcg@10")
		t.Logf("cranfield rm3=%v  MAP %.4f  nDCG@10 %.4f", rm3, q["map"], q["ndcg@10"])
		if q["map"] < 0.25 {
			t.Errorf("cranfield rm3=%v: MAP = %.4f, want >= 0.25", rm3, q["map"])
		}
	}
}

package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestSmallFloat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, enc, dec int }{
		{0, 0, 0}, {1, 1, 1}, {23, 23, 23}, {24, 24, 24}, {25, 25, 25},
		{100, 57, 96}, {1000, 87, 984}, {5000, 105, 4632},
	} {
		enc := intToByte4(tc.in)
		if int(enc) != tc.enc || byte4ToInt(enc) != tc.dec {
			t.Errorf("intToByte4(%d) = %d -> %d, want %d -> %d", tc.in, enc, byte4ToInt(enc), tc.enc, tc.dec)
		}
	}
	// Decoding never overstates a length, and encoding is monotonic.
	prev := uint8(0)
	for n := 0; n < 1<<20; n += 7 {
		e := intToByte4(n)
		if byte4ToInt(e) > n || e < prev {
			t.Fatalf("n=%d: enc %d dec %d prev %d", n, e, byte4ToInt(e), prev)
		}
		prev = e
	}
}

// TestBM25Score checks scores against the formula in the package doc,
// computed independently in float64.
func TestBM25Score(t *testing.T) {
	t.Parallel()
	docs := []assay.Document{
		{ID: "a", Text: "apple apple banana"},
		{ID: "b", Text: "apple cherry cherry cherry date elder fig grape"},
		{ID: "c", Text: "banana"},
		{ID: "d", Text: strings.Repeat("kiwi ", 40) + "apple"},
	}
	o := DefaultOptions()
	o.Analyzer = "simple"
	ix, err := Build(docs, o)
	if err != nil {
		t.Fatal(err)
	}
	lengths := []float64{3, 8, 1, 41}
	avgdl := (3 + 8 + 1 + 41) / 4.0
	N := 4.0
	want := func(tf, df float64, d int) float64 {
		idf := math.Log(1 + (N-df+0.5)/(df+0.5))
		dl := float64(byte4ToInt(intToByte4(int(lengths[d]))))
		return idf * tf / (tf + o.K1*(1-o.B+o.B*dl/avgdl))
	}
	res := ix.Search(Query{Text: "apple", K: 10})
	expect := map[string]float64{"a": want(2, 3, 0), "b": want(1, 3, 1), "d": want(1, 3, 3)}
	if len(res) != 3 {
		t.Fatalf("results %v", ids(res))
	}
	for _, r := range res {
		if math.Abs(r.Score-expect[r.ID]) > 1e-5 {
			t.Errorf("%s: score %.7f, want %.7f", r.ID, r.Score, expect[r.ID])
		}
	}
	if ids(res)[0] != "a" || ids(res)[2] != "d" {
		t.Errorf("order %v", ids(res))
	}
	// A repeated query term counts twice.
	two := ix.Search(Query{Text: "apple apple", K: 1})
	if math.Abs(two[0].Score-2*expect["a"]) > 1e-5 {
		t.Errorf("repeated term: %.7f, want %.7f", two[0].Score, 2*expect["a"])
	}
	// Both terms add up.
	both := ix.Search(Query{Text: "apple banana", K: 1})
	if w := want(2, 3, 0) + want(1, 2, 0); math.Abs(both[0].Score-w) > 1e-5 {
		t.Errorf("two terms: %.7f, want %.7f", both[0].Score, w)
	}
	if s := ix.Stats(); s.DocCount != 4 || math.Abs(s.AvgDL-avgdl) > 1e-6 {
		t.Errorf("stats %+v", s)
	}
}

func TestBM25Params(t *testing.T) {
	t.Parallel()
	docs := []assay.Document{{ID: "short", Text: "cat"}, {ID: "long", Text: "cat cat cat " + strings.Repeat("filler ", 60)}}
	// b = 0: no length normalisation, so the higher tf wins.
	o := DefaultOptions()
	o.B = 0
	ix, _ := Build(docs, o)
	if r := ix.Search(Query{Text: "cat"}); r[0].ID != "long" {
		t.Errorf("b=0: %v", ids(r))
	}
	// b = 1: full length normalisation, the short document wins.
	o.B = 1
	ix, _ = Build(docs, o)
	if r := ix.Search(Query{Text: "cat"}); r[0].ID != "short" {
		t.Errorf("b=1: %v", ids(r))
	}
}

func TestTiesRankInCorpusOrder(t *testing.T) {
	t.Parallel()
	docs := []assay.Document{{ID: "z", Text: "same words"}, {ID: "a", Text: "same words"}, {ID: "m", Text: "same words"}}
	ix, _ := Build(docs, DefaultOptions())
	if got := strings.Join(ids(ix.Search(Query{Text: "same"})), ","); got != "z,a,m" {
		t.Errorf("ties: %s", got)
	}
	if got := ids(ix.Search(Query{Text: "same", K: 2})); len(got) != 2 || got[0] != "z" {
		t.Errorf("top 2: %v", got)
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, mod := range []func(*Options){
		func(o *Options) { o.K1 = -1 },
		func(o *Options) { o.K1 = math.NaN() },
		func(o *Options) { o.B = 1.5 },
		func(o *Options) { o.FbDocs = 0 },
		func(o *Options) { o.FbTerms = 0 },
		func(o *Options) { o.OriginalQueryWeight = 2 },
		func(o *Options) { o.Analyzer = "xx" },
	} {
		o := DefaultOptions()
		mod(&o)
		if _, err := Build(nil, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestEmptyCorpus(t *testing.T) {
	t.Parallel()
	ix, err := Build(nil, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r := ix.Search(Query{Text: "anything"}); len(r) != 0 {
		t.Errorf("results from an empty corpus: %v", r)
	}
	ix, _ = Build([]assay.Document{{ID: "blank"}}, DefaultOptions())
	if r := ix.Search(Query{Text: "anything"}); len(r) != 0 {
		t.Errorf("results from a blank document: %v", r)
	}
}

func TestRM3Expands(t *testing.T) {
	t.Parallel()
	docs := []assay.Document{
		{ID: "1", Text: "jaguar speed cat jungle predator"},
		{ID: "2", Text: "jaguar cat jungle spots"},
		{ID: "3", Text: "cat jungle predator habitat"},
		{ID: "4", Text: "car engine speed"},
	}
	for i := 0; i < 40; i++ {
		docs = append(docs, assay.Document{ID: "filler" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Text: "unrelated text number " + strings.Repeat("y", i)})
	}
	o := DefaultOptions()
	o.Analyzer = "simple"
	ix, _ := Build(docs, o)
	plain := ids(ix.Search(Query{Text: "jaguar"}))
	on := true
	expanded := ids(ix.Search(Query{Text: "jaguar", RM3: &on}))
	if len(plain) != 2 {
		t.Fatalf("plain: %v", plain)
	}
	// Feedback from the jaguar documents brings in "jungle"/"cat" documents.
	if len(expanded) < 3 || expanded[2] != "3" {
		t.Errorf("rm3: %v, want document 3 third", expanded)
	}
	w := ix.expand(map[string]float64{"jaguar": 1}, ix.Search(Query{Text: "jaguar"}))
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("expanded weights %v sum %v, want 1", w, sum)
	}
	if w["jaguar"] < 0.5 {
		t.Errorf("original term weight %v < originalQueryWeight", w["jaguar"])
	}
}

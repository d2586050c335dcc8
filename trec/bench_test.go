package trec

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkBigPair evaluates the MS MARCO-scale pair of
// ../shared/tools/README.md when ASSAY_TREC_BIG names the directory holding
// big.qrels and big.run (bench/trec.sh generates them), and the same run
// with its lines shuffled (shuf.run, topics interleaved) when present.
func BenchmarkBigPair(b *testing.B) {
	dir := os.Getenv("ASSAY_TREC_BIG")
	if dir == "" {
		b.Skip("set ASSAY_TREC_BIG to the directory of big.qrels and big.run")
	}
	for _, runFile := range []string{"big.run", "shuf.run"} {
		if _, err := os.Stat(filepath.Join(dir, runFile)); err != nil {
			continue
		}
		for _, args := range []string{"", "-q -m all_trec"} {
			b.Run(strings.ReplaceAll(runFile+"/args="+args, " ", "_"), func(b *testing.B) {
				for b.Loop() {
					var out, errb bytes.Buffer
					a := append(strings.Fields(args), filepath.Join(dir, "big.qrels"), filepath.Join(dir, runFile))
					if code := Main(a, osIO(dir, &out, &errb)); code != 0 {
						b.Fatalf("exit %d: %s", code, errb.String())
					}
				}
			})
		}
	}
}

// BenchmarkSortShuffled sorts a shuffled 1,000-line ranking (a topic of an
// interleaved run) by cmpItems.
func BenchmarkSortShuffled(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]item, 1000)
	for i := range src {
		src[i] = item{score: float64(200000+rng.IntN(400000)) / 1e4, doc: []byte(itoa(1000000 + rng.IntN(9000000)))}
	}
	items := make([]item, len(src))
	var s sorter
	for b.Loop() {
		copy(items, src)
		s.sort(items)
	}
}

// BenchmarkParseChunk measures the run-line parser alone.
func BenchmarkParseChunk(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 1<<20; i++ {
		buf.WriteString("1048585 Q0 7187013 ")
		buf.WriteString(strings.Repeat("1", 1+i%3))
		buf.WriteString(" 23.7061 bigrun\n")
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	q, err := ParseQrels([]byte("1048585 0 7187013 1\n"), "q")
	if err != nil {
		b.Fatal(err)
	}
	var sc parseScratch
	for b.Loop() {
		parseChunk(chunk{data: data}, q, &sc)
	}
}

// BenchmarkGenerated evaluates a generated 500 x 1000 pair (500,000 run
// lines) with all_trec, per topic.
func BenchmarkGenerated(b *testing.B) {
	files := generated(b, 500, 1000, false)
	b.SetBytes(int64(len(files["r"])))
	for b.Loop() {
		sys, _, errb := memIO(files, "")
		if code := Main(strings.Fields("-q -m all_trec q r"), sys); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}

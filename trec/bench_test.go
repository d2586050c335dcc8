package trec

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkBigPair evaluates the MS MARCO-scale pair of
// ../shared/tools/README.md when ASSAY_TREC_BIG names the directory holding
// big.qrels and big.run (bench/trec.sh generates them).
func BenchmarkBigPair(b *testing.B) {
	dir := os.Getenv("ASSAY_TREC_BIG")
	if dir == "" {
		b.Skip("set ASSAY_TREC_BIG to the directory of big.qrels and big.run")
	}
	for _, args := range []string{"", "-q -m all_trec"} {
		b.Run(strings.ReplaceAll("args="+args, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				var out, errb bytes.Buffer
				a := append(strings.Fields(args), filepath.Join(dir, "big.qrels"), filepath.Join(dir, "big.run"))
				if code := Main(a, osIO(dir, &out, &errb)); code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
			}
		})
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

package store_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/sqlite"
	"github.com/assay-eval/assay/store/storetest"
)

// quickstartLike builds n case results shaped like a builtin run of the
// quickstart: ten hits with ids, titles and paths, an extractive answer
// made of corpus sentences, one citation quoting it, three spans, versions.
// The text comes from the quickstart corpus so it compresses like real text.
func quickstartLike(t testing.TB, n int) []assay.CaseResult {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "examples", "quickstart", "corpus", "*.md"))
	if err != nil || len(files) == 0 {
		t.Skipf("quickstart corpus not found: %v", err)
	}
	var docs []string
	var sentences []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, filepath.Base(f))
		for _, s := range strings.Split(strings.ReplaceAll(string(b), "\n", " "), ". ") {
			if s = strings.TrimSpace(s); len(s) > 30 {
				sentences = append(sentences, s+".")
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]assay.CaseResult, n)
	for i := range out {
		id := fmt.Sprintf("case-%04d", i)
		lat := 0.1 + r.Float64()
		pass := r.IntN(10) > 0
		var hits []assay.Hit
		score := 12 * r.Float64()
		for _, j := range r.Perm(len(docs))[:10] {
			d := docs[j]
			hits = append(hits, assay.Hit{ID: d, Score: float64(float32(score)), Title: strings.ToUpper(d[:1]) + strings.TrimSuffix(d[1:], ".md"), Path: d})
			score *= 0.4 + 0.5*r.Float64()
		}
		answer := sentences[r.IntN(len(sentences))] + " " + sentences[r.IntN(len(sentences))]
		ndcg := r.Float64()
		out[i] = assay.CaseResult{
			ID: id, Pass: &pass, LatencyMs: &lat, Retrieved: 10, Citations: 1,
			Checks:  []assay.Check{{Kind: "answer_includes", Pass: pass}, {Kind: "cites", Pass: true}},
			Metrics: map[string]float64{"ndcg@10": ndcg, "recall@5": 1, "recall@10": 1, "mrr": 1, "map": ndcg, "hit@5": 1},
			Tags:    map[string]string{"category": []string{"security", "limits", "billing", "editor"}[i%4]},
			Observation: &assay.Observation{
				Case: id, Retrieved: hits, Answer: answer, LatencyMs: &lat,
				Citations: []assay.Citation{{ID: hits[0].ID, Title: hits[0].Title, Path: hits[0].Path, Quote: answer}},
				Spans:     []assay.Span{{Name: "analyze", EndMs: 0.01}, {Name: "retrieve", StartMs: 0.01, EndMs: 0.03}, {Name: "answer", StartMs: 0.03, EndMs: lat}},
				Versions:  map[string]string{"analyzer": "auto:en", "assay": "0.1.0-dev", "engine": "bm25"},
			},
		}
	}
	return out
}

func dirSize(t testing.TB, dir string) (bytes, blocks int64) {
	t.Helper()
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			bytes += fi.Size()
			blocks += (fi.Size() + 4095) / 4096 * 4096
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bytes, blocks
}

func saveRun(t testing.TB, s store.Store, cases []assay.CaseResult) string {
	run := storetest.NewRun("quickstart", time.Now().UTC())
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	storetest.Complete(run, cases)
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	return w.Dir()
}

// TestThousandCaseRunUnder1MB is the size goal: a stored 1,000-case run of
// the quickstart kind takes at most 1 MB on disk.
func TestThousandCaseRunUnder1MB(t *testing.T) {
	t.Parallel()
	s, err := sqlite.OpenStore(t.TempDir(), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cases := quickstartLike(t, 1000)
	dir := saveRun(t, s, cases)
	size, onDisk := dirSize(t, dir)
	t.Logf("1,000-case run: %d bytes in files, %d bytes in 4 KiB blocks", size, onDisk)
	if onDisk > 1<<20 {
		t.Errorf("a 1,000-case run takes %d bytes on disk; the goal is <= 1 MiB", onDisk)
	}
	run, err := store.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := store.ReadCases(dir, func(r assay.CaseResult) error {
		if r.Observation == nil || len(r.Observation.Retrieved) != 10 {
			return fmt.Errorf("case %s lost its observation", r.ID)
		}
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(run.Cases) != 1000 || n != 1000 {
		t.Errorf("read back %d cases from run.json and %d from cases; want 1000", len(run.Cases), n)
	}
}

// TestCasesGzipWithinATenthOfBest pins what the faster compression of
// cases.jsonl.gz may cost in disk: at most a tenth more than the best
// compression (gzip level 9) of the same lines in the same 64 KiB members.
// A speed level (1) or Huffman-only coding would be 40% larger or more.
func TestCasesGzipWithinATenthOfBest(t *testing.T) {
	t.Parallel()
	s, err := store.OpenFiles(t.TempDir(), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := saveRun(t, s, quickstartLike(t, 1000))
	gz, err := os.ReadFile(filepath.Join(dir, store.CasesGzFile))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var best bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&best, gzip.BestCompression)
	for len(plain) > 0 {
		// Whole lines, a member once 64 KiB of them are in it.
		n := 0
		for n < 64<<10 && n < len(plain) {
			n += bytes.IndexByte(plain[n:], '\n') + 1
		}
		zw.Reset(&best)
		zw.Write(plain[:n])
		zw.Close()
		plain = plain[n:]
	}
	ratio := float64(len(gz)) / float64(best.Len())
	t.Logf("cases.jsonl.gz: %d bytes; at the best compression %d (%.3f)", len(gz), best.Len(), ratio)
	if ratio > 1.10 {
		t.Errorf("cases.jsonl.gz is %.3f times its size at the best compression; want <= 1.10", ratio)
	}
}

// BenchmarkSaveRun1000 writes a 1,000-case quickstart-like run: Begin,
// 1,000 Appends, Finish (run.json, gzip of the cases, index rows).
func BenchmarkSaveRun1000(b *testing.B) {
	s, err := sqlite.OpenStore(b.TempDir(), store.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	cases := quickstartLike(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		saveRun(b, s, cases)
	}
}

// BenchmarkLoadRun10000 reads a 10,000-case run.json, as compare does.
func BenchmarkLoadRun10000(b *testing.B) {
	s, err := sqlite.OpenStore(b.TempDir(), store.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	dir := saveRun(b, s, quickstartLike(b, 10000))
	b.ResetTimer()
	for b.Loop() {
		if _, err := store.LoadRun(dir); err != nil {
			b.Fatal(err)
		}
	}
}

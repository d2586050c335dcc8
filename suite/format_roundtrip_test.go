package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// comparable is the part of a resolved suite that importing must keep:
// everything but where it was read from.
func fxComparableSuite(s *assay.Suite) assay.Suite {
	c := *s
	c.Path, c.Dir, c.Format, c.CorpusSource, c.Warnings = "", "", "", "", nil
	c.Gates = nil
	for _, g := range s.Gates {
		c.Gates = append(c.Gates, assay.Gate{Expr: g.Expr})
	}
	c.Cases = make([]assay.Case, len(s.Cases))
	for i, k := range s.Cases {
		k.Source = ""
		k.Expect.JSONSchemaPath = ""
		c.Cases[i] = k
	}
	return c
}

// diffSuites names the first difference between two suites, or "".
func fxDiffSuites(a, b *assay.Suite) string {
	x, y := fxComparableSuite(a), fxComparableSuite(b)
	if len(x.Cases) != len(y.Cases) {
		return fmt.Sprintf("cases: %d vs %d", len(x.Cases), len(y.Cases))
	}
	for i := range x.Cases {
		if !reflect.DeepEqual(x.Cases[i], y.Cases[i]) {
			return fmt.Sprintf("case %d:\n  %+v\nvs\n  %+v", i, x.Cases[i], y.Cases[i])
		}
	}
	if len(x.Corpus) != len(y.Corpus) {
		return fmt.Sprintf("corpus: %d vs %d docs", len(x.Corpus), len(y.Corpus))
	}
	for i := range x.Corpus {
		if !reflect.DeepEqual(x.Corpus[i], y.Corpus[i]) {
			return fmt.Sprintf("corpus doc %d:\n  %+v\nvs\n  %+v", i, x.Corpus[i], y.Corpus[i])
		}
	}
	x.Cases, y.Cases, x.Corpus, y.Corpus = nil, nil, nil, nil
	if !reflect.DeepEqual(x, y) {
		return fmt.Sprintf("suite:\n  %+v\nvs\n  %+v", x, y)
	}
	return ""
}

// roundTrip imports src as format into a temporary directory, loads the
// native file back and compares it with the original.
func fxRoundTrip(t *testing.T, format, src string, o LoadOptions) *assay.Suite {
	t.Helper()
	orig, err := LoadWith(src, o)
	if err != nil {
		t.Fatalf("load original: %v", err)
	}
	if got := DetectFormat(src); got != format {
		t.Errorf("DetectFormat(%s) = %q, want %q", src, got, format)
	}
	for _, name := range []string{"imported.yaml", "imported.jsonl"} {
		fxRoundTripTo(t, format, src, filepath.Join(t.TempDir(), name), o, orig)
	}
	return orig
}

// fxRoundTripTo imports src as format to out (YAML, or JSONL for .jsonl)
// and compares what loads back with orig.
func fxRoundTripTo(t *testing.T, format, src, out string, o LoadOptions, orig *assay.Suite) {
	t.Helper()
	_, written, err := Import(format, src, out, o)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if written[len(written)-1] != out {
		t.Errorf("written = %v, want %s last", written, out)
	}
	back, err := Load(out)
	if err != nil {
		b, _ := os.ReadFile(out)
		t.Fatalf("load imported %s: %v\n%s", filepath.Base(out), err, fxHead(string(b), 3000))
	}
	if back.Format != "native" {
		t.Errorf("imported suite format = %q, want native", back.Format)
	}
	if fa, fb := Fingerprint(orig), Fingerprint(back); fa != fb {
		t.Errorf("fingerprints differ: original %s, imported %s", fa, fb)
	}
	if d := fxDiffSuites(orig, back); d != "" {
		b, _ := os.ReadFile(out)
		t.Fatalf("imported suite %s differs: %s\n--- imported file:\n%s", filepath.Base(out), d, fxHead(string(b), 3000))
	}
}

func fxHead(s string, n int) string {
	if len(s) > n {
		return s[:n] + "\n..."
	}
	return s
}

func TestImportRoundTripSeedFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format, src string
		cases, docs int
	}{
		{FormatGNO, "gno/queries.json", 29, 9},
		{FormatGNO, "gno/hybrid-adversarial.json", 8, 9},
		{FormatGNOAsk, "gno/ask-cases.json", 8, 9},
		{FormatKebab, "kebab/golden_queries.yaml", 5, 0},
		{FormatKebab, "kebab/multi_hop_golden.yaml", 15, 0},
		{FormatKnowlex, "knowlex-craftstack/golden_qa.json", 30, 10},
	} {
		t.Run(strings.ReplaceAll(tc.src, "/", "_"), func(t *testing.T) {
			s := fxRoundTrip(t, tc.format, fxSeed(t, tc.src), LoadOptions{})
			if len(s.Cases) != tc.cases || len(s.Corpus) != tc.docs {
				t.Errorf("got %d cases and %d docs, want %d and %d", len(s.Cases), len(s.Corpus), tc.cases, tc.docs)
			}
		})
	}
}

func TestImportRoundTripDatasets(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("loads SciFact and Cranfield")
	}
	t.Run("scifact", func(t *testing.T) {
		s := fxRoundTrip(t, FormatBEIR, fxDataset(t, "scifact"), LoadOptions{})
		if len(s.Cases) != 300 {
			t.Errorf("got %d cases, want 300", len(s.Cases))
		}
	})
	t.Run("cranfield", func(t *testing.T) {
		s := fxRoundTrip(t, FormatCranfield, fxDataset(t, "cranfield"), LoadOptions{})
		if len(s.Cases) != 225 || len(s.Corpus) != 1400 {
			t.Errorf("got %d cases, %d docs, want 225 and 1400", len(s.Cases), len(s.Corpus))
		}
	})
}

func TestImportRoundTripSynthetic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format, src string
		o           LoadOptions
	}{
		{FormatGNO, "gno/queries.json", LoadOptions{}},
		{FormatGNO, "gno/adversarial.json", LoadOptions{}},
		{FormatGNOAsk, "gno/ask.json", LoadOptions{}},
		{FormatKnowlex, "knowlex/golden.json", LoadOptions{}},
		{FormatKebab, "kebab/golden.yaml", LoadOptions{}},
		{FormatBEIR, "beir", LoadOptions{}},
		{FormatBEIR, "beir", LoadOptions{Split: "dev"}},
		{FormatTREC, "trec", LoadOptions{}},
		{FormatTREC, "trec-tsv/test.qrels", LoadOptions{}},
		{FormatCranfield, "cranfield", LoadOptions{}},
	} {
		t.Run(strings.ReplaceAll(tc.src, "/", "_")+tc.o.Split, func(t *testing.T) {
			fxRoundTrip(t, tc.format, filepath.Join("testdata", "formats", tc.src), tc.o)
		})
	}
}

// The round trip must notice a difference: a suite whose import lost a
// judgment grade, a tag or a gate is not equal.
func TestDiffSuitesNoticesLoss(t *testing.T) {
	t.Parallel()
	s, err := Load(filepath.Join("testdata", "formats", "knowlex", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*assay.Suite){
		"tag":       func(x *assay.Suite) { x.Cases[0].Tags = nil },
		"gate":      func(x *assay.Suite) { x.Gates = x.Gates[:1] },
		"doc text":  func(x *assay.Suite) { x.Corpus[0].Text += " " },
		"refusal":   func(x *assay.Suite) { x.Cases[2].Expect.Refusal = nil },
		"judgments": func(x *assay.Suite) { x.Cases[1].Judgments = map[string]int{"Clay recycling": 1} },
		"k":         func(x *assay.Suite) { x.Defaults.K = 5 },
	} {
		c, _ := Load(filepath.Join("testdata", "formats", "knowlex", "golden.json"))
		mutate(c)
		if fxDiffSuites(s, c) == "" {
			t.Errorf("%s: difference not noticed", name)
		}
	}
}

package suite

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/shareddata"
)

func fxSharedDir(tb testing.TB) string { return shareddata.Dir(tb) }

func fxSeed(t testing.TB, rel string) string {
	return filepath.Join(fxSharedDir(t), "seed-fixtures", rel)
}

func fxDataset(t testing.TB, rel string) string {
	return filepath.Join(fxSharedDir(t), "datasets", rel)
}

var updateFormats = flag.Bool("update-formats", false, "rewrite suite/testdata/formats/*.golden.json")

// resolvedView is what the loader tests pin down: the whole resolved suite,
// with the fields assay.Suite leaves out of its JSON form.
type fxResolvedView struct {
	Suite    *assay.Suite
	Path     string
	Dir      string
	Sources  []string
	Warnings []string
}

func TestLoadSyntheticFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, format string
	}{
		{"gno", "gno/queries.json", FormatGNO},
		{"gno-adversarial", "gno/adversarial.json", FormatGNOAdversarial},
		{"gno-ask", "gno/ask.json", FormatGNOAsk},
		{"gno-bench", "gno-bench/bench.json", FormatGNOBench},
		{"knowlex", "knowlex/golden.json", FormatKnowlex},
		{"kebab", "kebab/golden.yaml", FormatKebab},
		{"beir", "beir", FormatBEIR},
		{"trec-dir", "trec", FormatTREC},
		{"trec-qrels-file", "trec-tsv/test.qrels", FormatTREC},
		{"cranfield", "cranfield", FormatCranfield},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("testdata", "formats", tc.path)
			s, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != tc.format {
				t.Errorf("Format = %q, want %q", s.Format, tc.format)
			}
			v := fxResolvedView{Suite: s, Path: s.Path, Dir: s.Dir, Warnings: s.Warnings}
			for _, c := range s.Cases {
				v.Sources = append(v.Sources, c.Source)
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			golden := filepath.Join("testdata", "formats", "Load_"+tc.name+".golden.json")
			if *updateFormats {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./suite -run TestLoadSyntheticFormats -update-formats)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("resolved suite differs from %s:\n%s", golden, fxLineDiff(string(want), string(got)))
			}
		})
	}
}

// lineDiff shows the first differing lines of two texts.
func fxLineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, a, b)
		}
	}
	return ""
}

// replaceWith replaces a file whole (no temporary file left beside it),
// writes through a symlink in place, and fails cleanly where it cannot.
func TestReplaceWith(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte("old content, longer than the new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replaceWith(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content %q, want %q", b, "new")
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if err := replaceWith(link, []byte("through the link")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "through the link" {
		t.Errorf("the link's target holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if err := replaceWith(filepath.Join(dir, "missing", "s.yaml"), []byte("x")); err == nil {
		t.Error("no error writing into a missing directory")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files left: %v, want s.yaml and link.yaml", entries)
	}
}

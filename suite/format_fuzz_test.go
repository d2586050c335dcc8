package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addFormatSeeds adds the synthetic fixtures under testdata/formats whose
// names end in one of exts as seeds (besides testdata/fuzz/<Fuzz name>).
func addFormatSeeds(f *testing.F, exts ...string) {
	filepath.WalkDir(filepath.Join("testdata", "formats"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".golden.json") {
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(p, e) {
				if b, err := os.ReadFile(p); err == nil {
					f.Add(b)
				}
			}
		}
		return nil
	})
}

// fuzzPath is a file path whose directory does not exist, so loaders find
// no corpus beside it.
const fuzzPath = "no-such-dir/fuzz.json"

func FuzzSniffFormat(f *testing.F) {
	addFormatSeeds(f, ".json", ".yaml", ".txt", ".qrels", ".tsv")
	f.Fuzz(func(t *testing.T, data []byte) {
		switch got := sniffBytes(data); got {
		case "", FormatGNO, FormatGNOAdversarial, FormatGNOAsk, FormatGNOBench, FormatKnowlex, FormatKebab, FormatTREC:
		default:
			t.Fatalf("sniffBytes = %q", got)
		}
	})
}

func FuzzLoadGNO(f *testing.F) {
	addFormatSeeds(f, ".json")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ask := range []bool{false, true} {
			s, err := loadGNO(fuzzPath, data, ask)
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error spans lines: %q", err)
				}
				continue
			}
			seen := map[string]bool{}
			for _, c := range s.Cases {
				if c.ID == "" || c.Query == "" || seen[c.ID] {
					t.Fatalf("loaded a bad case %+v", c)
				}
				seen[c.ID] = true
			}
		}
	})
}

func FuzzLoadGNOBench(f *testing.F) {
	addFormatSeeds(f, ".json")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := loadGNOBench(fuzzPath, data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range s.Cases {
			if c.ID == "" || c.Query == "" || seen[c.ID] {
				t.Fatalf("loaded a bad case %+v", c)
			}
			seen[c.ID] = true
		}
	})
}

func FuzzLoadKnowlex(f *testing.F) {
	addFormatSeeds(f, ".json")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := loadKnowlex(fuzzPath, data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		for i := 1; i < len(s.Corpus); i++ {
			if s.Corpus[i-1].ID >= s.Corpus[i].ID {
				t.Fatalf("corpus not sorted by unique id: %q, %q", s.Corpus[i-1].ID, s.Corpus[i].ID)
			}
		}
		for _, c := range s.Cases {
			if c.ID == "" || c.Query == "" {
				t.Fatalf("loaded a bad case %+v", c)
			}
		}
	})
}

func FuzzLoadKebab(f *testing.F) {
	addFormatSeeds(f, ".yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := loadKebab("no-such-dir/fuzz.yaml", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		for _, c := range s.Cases {
			if c.ID == "" || c.Query == "" {
				t.Fatalf("loaded a bad case %+v", c)
			}
		}
	})
}

func FuzzTRECFiles(f *testing.F) {
	addFormatSeeds(f, ".txt", ".qrels", ".tsv", "cran.qry", "cranqrel")
	f.Fuzz(func(t *testing.T, data []byte) {
		parseTRECQrels("q", data)
		parseBEIRQrels("q", data)
		topics, err := parseTRECTopics("t", data)
		if err == nil {
			for _, tp := range topics {
				if tp.line < 1 {
					t.Fatalf("topic %q without a line", tp.id)
				}
			}
		}
		for _, r := range readSMART(data) {
			if r.line < 1 {
				t.Fatalf("record %q without a line", r.id)
			}
		}
	})
}

package suite

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestDebugDump(t *testing.T) {
	for _, p := range []string{seed(t, "gno/queries.json"), seed(t, "gno/ask-cases.json"), seed(t, "gno/hybrid-adversarial.json"), seed(t, "kebab/golden_queries.yaml"), seed(t, "kebab/multi_hop_golden.yaml"), seed(t, "knowlex-craftstack/golden_qa.json"), dataset(t, "scifact"), dataset(t, "cranfield")} {
		f := DetectFormat(p)
		s, err := LoadFormat(f, p, LoadOptions{})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		b, _ := json.Marshal(s.Cases[0])
		fmt.Println(f, s.Format, s.Name, len(s.Cases), len(s.Corpus), s.CorpusSource, s.Gates, s.Metrics, s.Defaults)
		fmt.Println("  ", s.Cases[0].Source, string(b))
		for _, w := range s.Warnings {
			fmt.Println("   W", w)
		}
	}
}

func TestDebugImport(t *testing.T) {
	for _, c := range [][2]string{{"knowlex", seed(t, "knowlex-craftstack/golden_qa.json")}, {"gno", seed(t, "gno/queries.json")}, {"kebab", seed(t, "kebab/golden_queries.yaml")}, {"gno-ask", seed(t, "gno/ask-cases.json")}} {
		_, w, err := Import(c[0], c[1], "/tmp/imp/"+c[0]+".yaml", LoadOptions{})
		fmt.Println(w, err)
	}
}

func TestDebugSynth(t *testing.T) {
	for _, p := range []string{"gno/queries.json", "gno/adversarial.json", "gno/ask.json", "knowlex/golden.json", "kebab/golden.yaml", "beir", "trec", "trec/qrels.txt", "trec-tsv", "trec-tsv/test.qrels", "cranfield"} {
		p = "testdata/formats/" + p
		s, err := Load(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		fmt.Println(p, s.Format, s.Name, len(s.Corpus), s.CorpusSource, s.Gates, s.Defaults)
		for _, c := range s.Cases {
			b, _ := json.Marshal(c)
			fmt.Println("   ", c.Source, string(b))
		}
		for _, w := range s.Warnings {
			fmt.Println("   W", w)
		}
	}
}

func TestDebugKebabErr(t *testing.T) {
	for _, p := range []string{"/tmp/kt/k.yaml", "/tmp/kt/s.yaml", "/tmp/kt/t.yaml"} {
		_, err := LoadFormat("kebab", p, LoadOptions{})
		fmt.Printf("%q\n", err)
	}
}

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

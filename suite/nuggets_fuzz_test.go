package suite

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// FuzzLoadNuggetizer: nuggetizer's assignments JSONL never panics, errors
// in one line, and loads only cases with unique ids whose every nugget has
// a text, an importance and a recorded assignment.
func FuzzLoadNuggetizer(f *testing.F) {
	f.Add([]byte(`{"qid": "q00", "query": "question 0", "run_id": "example", "nuggets": [{"text": "fact 0.0", "importance": "vital", "assignment": "partial_support"}, {"text": "fact 0.1", "importance": "okay", "assignment": "support"}]}` + "\n"))
	f.Add([]byte(`{"qid": 7, "nuggets": [{"text": "a", "importance": "okay", "assignment": "not_support"}]}` + "\n" + `{"qid": "7", "nuggets": []}`))
	f.Add([]byte("\ufeff{\"qid\": \"q\"}\n\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := loadNuggetizer("fuzz.jsonl", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range s.Cases {
			if c.ID == "" || seen[c.ID] || len(c.Expect.Nuggets) == 0 {
				t.Fatalf("loaded a bad case %+v", c)
			}
			seen[c.ID] = true
			for _, n := range c.Expect.Nuggets {
				if strings.TrimSpace(n.Text) == "" || (n.Importance != assay.NuggetVital && n.Importance != assay.NuggetOkay) || n.Assignment == "" {
					t.Fatalf("loaded a bad nugget %+v", n)
				}
			}
		}
	})
}

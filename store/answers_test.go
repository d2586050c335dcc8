package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

type idAnswer struct {
	id, answer string
	obs        bool
}

// FuzzReadAnswers: any bytes in cases.jsonl give answers or an error
// naming the file, and where ReadCases reads the lines (all ending in a
// newline), ReadAnswers gives the same id and answer for each.
func FuzzReadAnswers(f *testing.F) {
	f.Add([]byte("{\"id\":\"q1\",\"trial\":0,\"observation\":{\"answer\":\"A \\\"b\\\" \\u00e9\\n\",\"retrieved\":[{\"id\":\"d\"}]}}\n{\"id\":\"q2\"}\n"))
	f.Add([]byte("{\"id\":\"q1\",\"observation\":null}\n{\"id\""))
	f.Add([]byte("{\"ID\":\"q1\",\"observation\":{\"Answer\":\"x\",\"answer\":\"y\"}}\n"))
	f.Add([]byte("\n\n{}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "cases.jsonl")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var got []idAnswer
		err := store.ReadAnswers(path, func(id, answer string, obs bool) error {
			got = append(got, idAnswer{id, answer, obs})
			return nil
		})
		if err != nil && !strings.HasPrefix(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			// A last line without its newline that does not decode whole
			// is a torn line ReadCases skips; its id and answer may still
			// decode.
			return
		}
		var want []idAnswer
		if store.ReadCases(path, func(r assay.CaseResult) error {
			a := idAnswer{id: r.ID}
			if r.Observation != nil {
				a.answer, a.obs = r.Observation.Answer, true
			}
			want = append(want, a)
			return nil
		}) != nil {
			return
		}
		if err != nil {
			t.Fatalf("ReadCases reads the lines, ReadAnswers fails: %v", err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d lines read, ReadCases reads %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("line %d: %+v, ReadCases reads %+v", i+1, got[i], want[i])
			}
		}
	})
}

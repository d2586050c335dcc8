package grade_test

import (
	"sync"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
)

// TestCaseHashReusesNothingOfTheLastCase: CaseHash reuses its digest and
// encoder from call to call; called again and again, from several
// goroutines at once, and for a conversation (which hashes each of its
// turns inside its own hash), each case keeps its one hash.
func TestCaseHashReusesNothingOfTheLastCase(t *testing.T) {
	t.Parallel()
	o, _ := grade.NewOptions(&assay.Suite{})
	one := hashCase()
	conv := assay.Case{ID: "conv", Turns: []assay.Turn{{Query: "first"}, {Query: "second"}}}
	other := assay.Case{ID: "q2", Query: "Something else entirely"}
	want := []string{grade.CaseHash(one, o), grade.CaseHash(conv, o), grade.CaseHash(other, o)}
	if want[0] != "sha256:3ad698f152d5bbd20930e6b0f72b4375bc803cb22be04f15bbe2f1de80d2de01" || want[1] == want[2] || want[0] == want[2] {
		t.Fatalf("hashes %q", want)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				k := (i + g) % 3
				got := grade.CaseHash([]assay.Case{one, conv, other}[k], o)
				if got != want[k] {
					t.Errorf("goroutine %d, call %d: %s, want %s", g, i, got, want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
}

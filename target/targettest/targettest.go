package targettest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

// Suite returns the small suite the conformance subtests run: four
// documents and four cases, three of which have one obviously relevant
// document and one that nothing in the corpus answers.
func Suite() *assay.Suite {
	refuse := true
	return &assay.Suite{
		Name:     "targettest",
		Format:   "native",
		Defaults: assay.Defaults{K: 3},
		Corpus: []assay.Document{
			{ID: "bicycle.md", Title: "Bicycle chain care", Text: "Wipe the bicycle chain with a rag, then lubricate every link with a drop of chain oil. Wipe off the excess oil after a minute."},
			{ID: "compost.md", Title: "Compost heaps", Text: "Turn the compost heap every two weeks so air reaches the middle. Keep the heap as damp as a wrung sponge."},
			{ID: "kettle.md", Title: "Kettle descaling", Text: "Descale the kettle once a month with a solution of citric acid. Boil it, leave it for an hour, then rinse twice."},
			{ID: "sourdough.md", Title: "Sourdough starter", Text: "Feed the sourdough starter at a ratio of one part starter, one part flour and one part water by weight."},
		},
		Cases: []assay.Case{
			{ID: "kettle", Query: "How often should a kettle be descaled?", Judgments: map[string]int{"kettle.md": 1},
				Expect: assay.Expect{AnswerIncludes: []string{"month"}, Retrieves: []string{"kettle.md"}}, Tags: map[string]string{"topic": "home"}},
			{ID: "starter", Query: "What ratio feeds a sourdough starter?", Judgments: map[string]int{"sourdough.md": 1},
				Expect: assay.Expect{AnswerIncludes: []string{"ratio"}}, Tags: map[string]string{"topic": "food"}},
			{ID: "chain", Query: "How do I lubricate a bicycle chain?", Judgments: map[string]int{"bicycle.md": 1},
				Expect: assay.Expect{Retrieves: []string{"bicycle.md"}}, Vars: map[string]string{"user": "ada"}},
			{ID: "offcorpus", Query: "Who won the chess olympiad in 1998?", Expect: assay.Expect{Refusal: &refuse}},
		},
	}
}

// Expected maps the ids of Suite's answerable cases to the document a
// conforming system ranks first.
var Expected = map[string]string{"kettle": "kettle.md", "starter": "sourdough.md", "chain": "bicycle.md"}

var stop = map[string]bool{"how": true, "often": true, "should": true, "what": true, "who": true, "the": true,
	"and": true, "does": true, "for": true, "with": true, "won": true, "then": true, "off": true, "part": true}

func words(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	out := f[:0]
	for _, w := range f {
		if len(w) >= 3 && !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

// Answer is the reference system: documents ranked by how many distinct
// query words they contain (ties by id), at most k; the answer is the top
// document's text; it cites the top document; with no match it refuses.
func Answer(s *assay.Suite, query string, k int) assay.Observation {
	q := map[string]bool{}
	for _, w := range words(query) {
		q[w] = true
	}
	type scored struct {
		d     assay.Document
		score int
	}
	var hits []scored
	for _, d := range s.Corpus {
		seen := map[string]bool{}
		n := 0
		for _, w := range words(d.Title + " " + d.Text) {
			if q[w] && !seen[w] {
				seen[w] = true
				n++
			}
		}
		if n > 0 {
			hits = append(hits, scored{d, n})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].d.ID < hits[j].d.ID
	})
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	refused := len(hits) == 0
	o := assay.Observation{Refused: &refused}
	if refused {
		o.Answer = "The documents do not contain an answer to that."
		return o
	}
	for _, h := range hits {
		o.Retrieved = append(o.Retrieved, assay.Hit{ID: h.d.ID, Score: float64(h.score), Title: h.d.Title})
	}
	o.Answer = hits[0].d.Text
	o.Citations = []assay.Citation{{ID: hits[0].d.ID, Title: hits[0].d.Title}}
	o.Versions = map[string]string{"reference": "1"}
	return o
}

// Request is what the reference system accepts over HTTP and on stdin.
type Request struct {
	ID    string `json:"id"`
	Query string `json:"query"`
	K     int    `json:"k"`
	Trial int    `json:"trial"`
}

// Handler serves Answer over HTTP: POST {"query","k"} returns the
// observation JSON.
func Handler(s *assay.Suite) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req Request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Answer(s, req.Query, req.K))
	})
}

// Program is the reference system as a program. mode "oneshot" reads one
// request from stdin and writes one observation; "serve" answers one JSON
// line per request line until stdin closes. It returns the exit code.
func Program(s *assay.Suite, mode string, stdin io.Reader, stdout io.Writer) int {
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	enc := json.NewEncoder(stdout)
	for sc.Scan() {
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			fmt.Fprintln(stdout, `{"error": "bad request"}`)
			return 3
		}
		if err := enc.Encode(Answer(s, req.Query, req.K)); err != nil {
			return 1
		}
		if mode == "oneshot" {
			return 0
		}
	}
	return 0
}

// Opener opens the target under test over the suite.
type Opener func(t *testing.T, s *assay.Suite) assay.Target

// Config adjusts the conformance run to a target kind.
type Config struct {
	// Secret is a value the target was configured with that must not
	// appear in its description.
	Secret string
	// SkipContent skips the check that the obvious document ranks first
	// (for targets whose answers do not come from Suite's corpus).
	SkipContent bool
	// NoTrials skips the trial check (a replay file with trial 0 only).
	NoTrials bool
}

// Run runs the conformance subtests against the targets open makes.
func Run(t *testing.T, open Opener, cfg Config) {
	s := Suite()
	t.Run("observes every case", func(t *testing.T) {
		tg := open(t, s)
		defer closeTarget(t, tg)
		for _, c := range s.Cases {
			o, err := tg.Observe(context.Background(), c)
			if err != nil {
				t.Fatalf("case %s: %v", c.ID, err)
			}
			if o.Case != c.ID || o.Trial != 0 {
				t.Errorf("case %s: observation names case %q trial %d", c.ID, o.Case, o.Trial)
			}
			if o.Error != nil {
				t.Errorf("case %s: observation carries error %v with a nil error returned", c.ID, o.Error)
			}
			want, ok := Expected[c.ID]
			if cfg.SkipContent || !ok {
				continue
			}
			if r := o.Ranking(); len(r) == 0 || r[0] != want {
				t.Errorf("case %s: ranking %v, want %s first", c.ID, r, want)
			}
		}
	})
	if !cfg.NoTrials {
		t.Run("carries the trial", func(t *testing.T) {
			tg := open(t, s)
			defer closeTarget(t, tg)
			o, err := tg.Observe(assay.WithTrial(context.Background(), 2), s.Cases[0])
			if err != nil {
				t.Fatal(err)
			}
			if o.Trial != 2 {
				t.Errorf("trial %d, want 2", o.Trial)
			}
		})
	}
	t.Run("is safe for concurrent use", func(t *testing.T) {
		tg := open(t, s)
		defer closeTarget(t, tg)
		want := make([]assay.Observation, len(s.Cases))
		for i, c := range s.Cases {
			o, err := tg.Observe(context.Background(), c)
			if err != nil {
				t.Fatalf("case %s: %v", c.ID, err)
			}
			want[i] = o
		}
		var wg sync.WaitGroup
		errs := make(chan string, 64)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, c := range s.Cases {
					o, err := tg.Observe(context.Background(), c)
					if err != nil {
						errs <- fmt.Sprintf("case %s: %v", c.ID, err)
						return
					}
					if o.Answer != want[i].Answer || !reflect.DeepEqual(o.Ranking(), want[i].Ranking()) {
						errs <- fmt.Sprintf("case %s: concurrent observation differs from the sequential one", c.ID)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
	t.Run("stops when the context is canceled", func(t *testing.T) {
		tg := open(t, s)
		defer closeTarget(t, tg)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		done := make(chan struct{})
		var err error
		go func() {
			defer close(done)
			_, err = tg.Observe(ctx, s.Cases[0])
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Observe did not return within 5s of a canceled context")
		}
		if err != nil {
			if c := assay.AsError(err).Class; c != assay.ErrCanceled && c != assay.ErrTimeout {
				t.Errorf("error class %q, want canceled", c)
			}
		}
	})
	t.Run("answers an unknown case without panicking", func(t *testing.T) {
		tg := open(t, s)
		defer closeTarget(t, tg)
		c := assay.Case{ID: "unknown-case", Query: "zebra xylophone quasar"}
		o, err := tg.Observe(context.Background(), c)
		if err != nil {
			if assay.AsError(err).Class == "" {
				t.Errorf("error without a class: %v", err)
			}
			return
		}
		if o.Case != c.ID {
			t.Errorf("observation names case %q", o.Case)
		}
	})
	t.Run("describes itself without secrets", func(t *testing.T) {
		tg := open(t, s)
		defer closeTarget(t, tg)
		d, ok := tg.(assay.Describer)
		if !ok {
			t.Skip("target does not describe itself")
		}
		info := d.Describe()
		if info.Kind == "" {
			t.Error("description has no kind")
		}
		b, err := json.Marshal(info)
		if err != nil {
			t.Fatalf("description does not marshal: %v", err)
		}
		if cfg.Secret != "" && strings.Contains(string(b), cfg.Secret) {
			t.Errorf("description holds the secret: %s", b)
		}
	})
	t.Run("closes", func(t *testing.T) {
		tg := open(t, s)
		if _, err := tg.Observe(context.Background(), s.Cases[0]); err != nil {
			t.Fatal(err)
		}
		if c, ok := tg.(interface{ Close() error }); ok {
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	})
}

func closeTarget(t *testing.T, tg assay.Target) {
	t.Helper()
	if c, ok := tg.(interface{ Close() error }); ok {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

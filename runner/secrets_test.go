package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/redact"
)

// secretTarget answers with a token that is also a document id.
type secretTarget struct{ token string }

func (s secretTarget) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	return assay.Observation{
		Answer:    "see " + s.token,
		Retrieved: []assay.Hit{{ID: s.token + ".md"}},
		Citations: []assay.Citation{{ID: s.token + ".md"}},
		Versions:  map[string]string{"index": s.token},
	}, nil
}

func (s secretTarget) Secrets() []redact.Secret {
	return []redact.Secret{{Name: "KB_TOKEN", Value: s.token}}
}

// TestGradesTheRawObservationAndRedactsTheResult: a secret equal to a
// corpus word ("demo") does not change the grades (they are made on the
// raw observation), and what OnResult receives holds no secret.
func TestGradesTheRawObservationAndRedactsTheResult(t *testing.T) {
	s := &assay.Suite{Metrics: []string{"ndcg@10"}, Defaults: assay.Defaults{K: 10}}
	o, err := grade.NewOptions(s)
	if err != nil {
		t.Fatal(err)
	}
	c := []assay.Case{{ID: "q", Query: "what is the demo", Judgments: map[string]int{"demo.md": 1},
		Expect: assay.Expect{Retrieves: []string{"demo.md"}, Cites: []string{"demo.md"}, AnswerIncludes: []string{"demo"}}}}
	var seen []assay.CaseResult
	res, err := Run(context.Background(), secretTarget{"demo"}, c, Options{Grade: o, OnResult: func(_ assay.Case, r assay.CaseResult) error {
		seen = append(seen, r)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Results[0]
	if r.Metrics["ndcg@10"] != 1 || !r.Passed() {
		t.Errorf("grades changed by the secret: ndcg@10 %v, pass %v, checks %+v", r.Metrics["ndcg@10"], r.Passed(), r.Checks)
	}
	b, _ := json.Marshal(seen)
	if strings.Contains(string(b), "demo") || !strings.Contains(string(b), "${KB_TOKEN}.md") {
		t.Errorf("OnResult got a secret: %s", b)
	}
	if strings.Contains(res.Versions["index"], "demo") {
		t.Errorf("versions keep the secret: %v", res.Versions)
	}
}

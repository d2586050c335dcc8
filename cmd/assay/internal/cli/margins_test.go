package cli_test

import (
	"testing"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/harness"
)

func TestParseMargins(t *testing.T) {
	m, err := cli.ParseMargins([]string{"nDCG@10=0.01", "pass_rate=0.1"})
	if err != nil || m["ndcg@10"] != 0.01 || m["pass_rate"] != 0.1 || len(m) != 2 {
		t.Fatalf("ParseMargins = %v, %v", m, err)
	}
	for _, bad := range []string{"ndcg@10", "=0.1", "ndcg@10=x", "ndcg@10=-0.1", "ndcg@10=Inf", "nope@x=0.1"} {
		if _, err := cli.ParseMargins([]string{bad}); harness.KindOf(err) != harness.Usage {
			t.Fatalf("ParseMargins(%q) = %v, want a usage error", bad, err)
		}
	}
}

package cli_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/internal/httpserve"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/harness"
)

// assay ui and assay report over a store that does not exist fail with an
// Input error that says so, before serving or writing anything.
func TestServeStoreAndWriteReportNeedAStore(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	var log bytes.Buffer
	p := cli.StorePlan{StoreDir: missing, Log: &log}
	out := filepath.Join(t.TempDir(), "html")
	for name, err := range map[string]error{
		"ServeStore":  cli.ServeStore(context.Background(), p, "127.0.0.1:0", httpserve.DefaultServeLimits),
		"WriteReport": cli.WriteReport(context.Background(), p, out, "latest", ""),
	} {
		var he *harness.Error
		if !errors.As(err, &he) || he.Kind != harness.Input || !strings.Contains(err.Error(), "no run store at "+missing) {
			t.Errorf("%s: %v, want an Input error naming the store", name, err)
		}
	}
	if log.Len() != 0 {
		t.Errorf("log %q, want nothing", log.String())
	}
}

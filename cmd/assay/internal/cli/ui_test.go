package cli_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/ui"
)

// assay ui and assay report over a store that does not exist fail with an
// Input error that says so, before serving or writing anything.
func TestServeStoreAndWriteReportNeedAStore(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	var log bytes.Buffer
	p := ui.StorePlan{StoreDir: missing, Log: &log}
	out := filepath.Join(t.TempDir(), "html")
	for name, err := range map[string]error{
		"ServeStore":  ui.ServeStore(context.Background(), p, "127.0.0.1:0", harness.DefaultServeLimits),
		"WriteReport": ui.WriteReport(context.Background(), p, out, "latest", ""),
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

package cli

import (
	"bytes"
	"errors"
	"testing"

	"github.com/assay-eval/assay/harness"
)

// TestBuildInfoText pins what `assay version` prints for each part it may
// or may not know.
func TestBuildInfoText(t *testing.T) {
	for _, c := range []struct {
		b    BuildInfo
		want string
	}{
		{BuildInfo{Version: "v1.2.3", Go: "go1.25.0", Platform: "linux/amd64"}, "assay version v1.2.3\ngo go1.25.0 linux/amd64\n"},
		{BuildInfo{Version: "v1", Module: "m", ModuleVersion: "(devel)", Commit: "abc", Modified: true, Go: "g", Platform: "p"},
			"assay version v1\nmodule m (devel)\ncommit abc (modified)\ngo g p\n"},
		{BuildInfo{Version: "v1", Commit: "abc", Go: "g", Platform: "p"}, "assay version v1\ncommit abc\ngo g p\n"},
	} {
		if got := c.b.Text(); got != c.want {
			t.Errorf("%+v: Text() = %q, want %q", c.b, got, c.want)
		}
	}
}

// TestWriteSchema: a known schema is written whole; an unknown name is a
// usage error (exit 2) naming the known ones.
func TestWriteSchema(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSchema(&b, "suite"); err != nil || !bytes.Contains(b.Bytes(), []byte(`"title": "assay native suite (assay: 1)"`)) {
		t.Fatalf("WriteSchema(suite) = %v, %.80q", err, b.String())
	}
	err := WriteSchema(&b, "run")
	var he *harness.Error
	if !errors.As(err, &he) || he.Kind != harness.Usage || he.Err.Error() != `unknown schema "run" (want one of: suite)` {
		t.Errorf("WriteSchema(run) = %#v", err)
	}
}

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
	if !errors.As(err, &he) || he.Kind != harness.Usage || he.Err.Error() != `unknown schema "run" (want one of: floors, observation, suite, target)` {
		t.Errorf("WriteSchema(run) = %#v", err)
	}
}

// TestSetsVersion: a release build's -ldflags set assay.Version, and then
// it, not the module's pseudo-version, is the version.
func TestSetsVersion(t *testing.T) {
	for _, c := range []struct {
		ldflags string
		want    bool
	}{
		{"-s -w -X github.com/assay-eval/assay.Version=1.2.3", true},
		{"-X=github.com/assay-eval/assay.Version=1.2.3", true},
		{`-X 'github.com/assay-eval/assay.Version=1.2.3'`, true},
		{"-s -w", false},
		{"-X main.version=1.2.3", false},
		{"-X github.com/assay-eval/assay.VersionX=1", false},
		{"", false},
	} {
		if got := setsVersion(c.ldflags); got != c.want {
			t.Errorf("setsVersion(%q) = %v, want %v", c.ldflags, got, c.want)
		}
	}
}

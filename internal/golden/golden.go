// Package golden compares a test's output with a file under the test's
// testdata directory. `go test -update` rewrites the files instead: the
// flag is registered by this package, so only test binaries that import
// it have it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Check compares got with testdata/name, or writes it there under
// -update; a mismatch is reported with LineDiff.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the output (-want +got):\n%s", path, LineDiff(string(want), string(got)))
	}
}

// LineDiff lists the lines where a and b differ, line by line: "-" a's,
// "+" b's.
func LineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out.WriteString("-" + x + "\n+" + y + "\n")
		}
	}
	return out.String()
}

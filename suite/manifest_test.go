package suite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestManifestRoundTrip(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.yaml":         "assay: 1\ncorpus: docs\ncases:\n  - {id: a, query: q, relevant: [a.md]}\n",
		"other.yaml":     "assay: 1\ncorpus: docs\ncases:\n  - {id: b, query: q, relevant: [b.md]}\n",
		"docs/a.md":      "# A\n",
		"docs/sub/b.txt": "b\n",
	})
	t.Chdir(dir)
	s, err := Load("s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if ws := CheckManifest(s); ws != nil {
		t.Fatalf("warnings without a manifest: %v", ws)
	}
	mp, err := WriteManifest(s)
	if err != nil {
		t.Fatal(err)
	}
	if mp != ManifestName {
		t.Errorf("manifest written to %s, want %s beside the suite", mp, ManifestName)
	}
	var m Manifest
	b, _ := os.ReadFile(mp)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	entry := m.Suites["s.yaml"]
	var files []string
	for f := range entry.Files {
		files = append(files, f)
	}
	if got := strings.Join(slices.Sorted(slices.Values(files)), " "); got != "docs/a.md docs/sub/b.txt s.yaml" {
		t.Errorf("recorded files %q", got)
	}
	if entry.Fingerprint != Fingerprint(s) {
		t.Errorf("recorded fingerprint %s, want %s", entry.Fingerprint, Fingerprint(s))
	}
	if ws := CheckManifest(s); ws != nil {
		t.Fatalf("warnings right after writing: %v", ws)
	}

	// A second suite in the same directory keeps the first one's entry.
	other, err := Load("other.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if ws := CheckManifest(other); ws != nil {
		t.Errorf("a suite without an entry got warnings: %v", ws)
	}
	if _, err := WriteManifest(other); err != nil {
		t.Fatal(err)
	}

	// Change one corpus file, remove one, add one.
	os.WriteFile(filepath.Join("docs", "a.md"), []byte("# A changed\n"), 0o644)
	os.Remove(filepath.Join("docs", "sub", "b.txt"))
	os.WriteFile(filepath.Join("docs", "c.md"), []byte("# C\n"), 0o644)
	s, err = Load("s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(CheckManifest(s), "\n")
	want := strings.Join([]string{
		"docs/a.md changed since assay.manifest.json was written: review the change, then run 'assay lint --write-manifest s.yaml'",
		"docs/c.md is not recorded in assay.manifest.json: review the change, then run 'assay lint --write-manifest s.yaml'",
		"docs/sub/b.txt is recorded in assay.manifest.json but no longer part of the suite: review the change, then run 'assay lint --write-manifest s.yaml'",
	}, "\n")
	if got != want {
		t.Errorf("warnings:\n%s\nwant\n%s", got, want)
	}

	// Lint shows them as warnings of the manifest file.
	fs, err := Lint("s.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fs {
		if f.Source == ManifestName && f.Severity == SeverityWarning {
			n++
		}
	}
	if n != 3 {
		t.Errorf("lint: %d manifest warnings, want 3: %v", n, fs)
	}

	// The edited suite file itself is noticed too.
	os.WriteFile("other.yaml", []byte("assay: 1\ncorpus: docs\ncases:\n  - {id: b, query: changed, relevant: [c.md]}\n"), 0o644)
	other, _ = Load("other.yaml")
	if ws := CheckManifest(other); !strings.Contains(strings.Join(ws, "\n"), "other.yaml changed since") {
		t.Errorf("edited suite file not reported: %v", ws)
	}
}

func TestManifestUnreadable(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.yaml":     "assay: 1\ncases:\n  - {id: a, query: q, expect: {answer_includes: [x]}}\n",
		ManifestName: "{not json",
	})
	t.Chdir(dir)
	s, err := Load("s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ws := CheckManifest(s)
	if len(ws) != 1 || !strings.Contains(ws[0], "not a manifest") {
		t.Errorf("warnings %v, want one saying the manifest is unreadable", ws)
	}
	if _, err := WriteManifest(s); err == nil {
		t.Error("WriteManifest overwrote an unreadable manifest")
	}
}

// A suite named by a relative path whose corpus is an absolute path
// elsewhere: the manifest records the corpus files by their absolute paths
// and reads them there (was: "cannot read it to record its sha256", the
// absolute path joined onto the suite's directory).
func TestManifestCorpusElsewhere(t *testing.T) {
	docs := writeFiles(t, map[string]string{"a.md": "# A\n"})
	dir := writeFiles(t, map[string]string{
		"s.yaml": "assay: 1\ncorpus: " + docs + "\ncases:\n  - {id: a, query: q, relevant: [a.md]}\n",
	})
	t.Chdir(dir)
	s, err := Load("s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteManifest(s); err != nil {
		t.Fatal(err)
	}
	if ws := CheckManifest(s); ws != nil {
		t.Fatalf("warnings right after writing: %v", ws)
	}
	os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A changed\n"), 0o644)
	ws := CheckManifest(s)
	if len(ws) != 1 || !strings.Contains(ws[0], "a.md changed since") {
		t.Errorf("warnings %v, want one saying a.md changed", ws)
	}
}

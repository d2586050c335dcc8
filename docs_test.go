package assay_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoFiles walks the module root (this package's directory) and returns
// the slash paths of the files that ship as documentation or code: not
// tests (*_test.go and anything under testdata/), not hidden directories
// other than .ci (.git, a local .assay store).
func repoFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || (strings.HasPrefix(name, ".") && name != ".ci")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") || !d.Type().IsRegular() {
			return nil
		}
		out = append(out, filepath.ToSlash(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNoDocumentationOutsideTheRepository fails when a file of the
// repository (code comments, package docs, README, docs/, scripts) sends a
// reader to the design notes or reference texts kept beside the checkout:
// users do not have them, and the contracts live in docs/. Benchmark inputs
// (../shared/datasets) may still be named.
func TestNoDocumentationOutsideTheRepository(t *testing.T) {
	t.Parallel()
	bad := regexp.MustCompile(`(\.\./)+shared/(design|reference)`)
	for _, p := range repoFiles(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := bad.FindString(line); m != "" {
				t.Errorf("%s:%d: names %s; write the contract in docs/ instead", p, i+1, m)
			}
		}
	}
}

// TestDocsLinksResolve checks that every relative link of README.md and
// docs/*.md names a file of the repository, so the index and the pages
// that link each other do not rot.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			full := filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
			if !strings.HasPrefix(filepath.ToSlash(filepath.Clean(full)), "../") {
				if _, err := os.Stat(full); err == nil {
					continue
				}
			}
			t.Errorf("%s: link %q names no file of the repository", page, m[1])
		}
	}
}

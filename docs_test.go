package assay_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
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

// TestNoIssueOrSectionReferences fails when a comment, a package doc, a
// page of docs/, a testscript or a script cites an issue by its number or a
// numbered section of a design document (the section sign): readers have
// neither. Say what the rule or the reason is, or point at docs/.
// Test files and testscripts are read too: they are documentation of what
// they check.
func TestNoIssueOrSectionReferences(t *testing.T) {
	t.Parallel()
	bad := regexp.MustCompile(`(?i)\bissues? #?[0-9]+|\x{00A7}`)
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".txtar", ".sh", ".yaml", ".yml":
			files = append(files, p)
		default:
			if filepath.ToSlash(p) == ".ci/run" {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("only %d files read", len(files))
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := bad.FindString(line); m != "" {
				t.Errorf("%s:%d: cites %q; say the rule or point at docs/ instead", filepath.ToSlash(p), i+1, m)
			}
		}
	}
}

// anchors returns the fragment ids GitHub gives the headings of a markdown
// page: the heading text lower-cased, letters, digits, '-' and '_' kept,
// spaces turned into '-', everything else dropped.
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		out[b.String()] = true
	}
	return out
}

// TestDocsLinksResolve checks that every relative link of README.md and
// docs/*.md names a file of the repository, and a heading of it when the
// link has a fragment, so the index and the pages that link each other do
// not rot.
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
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, frag, _ := strings.Cut(target, "#")
			full := page
			if target != "" {
				full = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
			}
			if strings.HasPrefix(filepath.ToSlash(filepath.Clean(full)), "../") {
				t.Errorf("%s: link %q points outside the repository", page, m[1])
				continue
			}
			if _, err := os.Stat(full); err != nil {
				t.Errorf("%s: link %q names no file of the repository", page, m[1])
				continue
			}
			if frag == "" || !strings.HasSuffix(full, ".md") {
				continue
			}
			linked, err := os.ReadFile(full)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(linked))[frag] {
				t.Errorf("%s: link %q: %s has no heading #%s", page, m[1], full, frag)
			}
		}
	}
}

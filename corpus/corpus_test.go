package corpus

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestLoadDir(t *testing.T) {
	t.Parallel()
	docs, err := Load(filepath.Join("testdata", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ ID, Path, Title string }
	var got []row
	for _, d := range docs {
		got = append(got, row{d.ID, d.Path, d.Title})
	}
	want := []row{
		{"bom.md", "bom.md", "BOM title"},                                   // byte order mark removed
		{"guides/bare.md", "guides/bare.md", "bare"},                        // no heading: file name
		{"guides/deploy.md", "guides/deploy.md", "Deploying to production"}, // front matter, code and #hashtag skipped, closing #s dropped
		{"guides/notes.txt", "guides/notes.txt", "notes"},                   // .txt: file name
		{"intro.md", "intro.md", "Getting started"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("documents:\n got %v\nwant %v", got, want)
	}
	if !strings.HasPrefix(docs[0].Text, "# BOM title") {
		t.Errorf("bom.md text = %q, want the BOM removed", docs[0].Text)
	}
	if docs[4].Text != "# Getting started\n\nInstall the tool.\n" {
		t.Errorf("intro.md text = %q, want the file as written", docs[4].Text)
	}
}

func TestLoadDirNormalizesCRLF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# Title\r\n\r\nbody\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if docs[0].Text != "# Title\n\nbody\n" || docs[0].Title != "Title" {
		t.Errorf("got title %q text %q, want LF line ends", docs[0].Title, docs[0].Text)
	}
}

func TestLoadJSONL(t *testing.T) {
	t.Parallel()
	want := []assay.Document{
		{ID: "10", Title: "Numeric id", Text: "Ids may be numbers.", Lang: "de"},
		{ID: "d1", Title: "First", Text: "The first document."},
		{ID: "d2", Title: "Second", Text: "The second document.", Meta: map[string]string{"year": "2020", "source": "web"}},
	}
	for _, name := range []string{"docs.jsonl", "docs.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			docs, err := Load(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(docs, want) {
				t.Errorf("got  %+v\nwant %+v", docs, want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		jsonl string
		want  string
	}{
		{"invalid JSON", "{\"_id\": \"a\", \"text\": \"x\"}\n{\"_id\": \"b\", \n", `c.jsonl:2: invalid JSON: unexpected end of JSON input`},
		{"no id", "{\"title\": \"t\", \"text\": \"x\"}\n", `c.jsonl:1: missing "_id" or "id"`},
		{"empty id", "{\"_id\": \"\", \"text\": \"x\"}\n", `c.jsonl:1: "_id" is empty`},
		{"id of the wrong type", "\n\n{\"id\": [1], \"text\": \"x\"}\n", `c.jsonl:3: "id": want a string or a number, got [1]`},
		{"text of the wrong type", "{\"_id\": \"a\", \"text\": 5}\n", `c.jsonl:1: "text": want a string, got a JSON number`},
		{"neither title nor text", "{\"_id\": \"a\"}\n", `c.jsonl:1: document "a" has neither "title" nor "text"`},
		{"duplicate id", "{\"_id\": \"a\", \"text\": \"x\"}\n{\"id\": \"a\", \"text\": \"y\"}\n", `c.jsonl:2: duplicate id "a" (first at line 1)`},
		{"not an object", "[1, 2]\n", `c.jsonl:1: want a JSON object per line`},
		{"garbage", "hello\n", `c.jsonl:1: invalid JSON: want one object per line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadJSONL("c.jsonl", strings.NewReader(tt.jsonl))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n got %v\nwant %s", err, tt.want)
			}
		})
	}
	t.Run("missing path", func(t *testing.T) {
		_, err := Load(filepath.Join("testdata", "nope"))
		if want := filepath.Join("testdata", "nope") + ": no such file or directory"; err == nil || err.Error() != want {
			t.Errorf("error = %v, want %s", err, want)
		}
	})
	t.Run("not a corpus file", func(t *testing.T) {
		_, err := Load(filepath.Join("testdata", "docs", "image.png"))
		if err == nil || !strings.Contains(err.Error(), "not a corpus") {
			t.Errorf("error = %v, want not a corpus", err)
		}
	})
	t.Run("corrupt gzip", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "c.jsonl.gz")
		os.WriteFile(p, []byte("not gzip"), 0o644)
		_, err := Load(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("error = %v, want one positioned at the file", err)
		}
	})
}

func TestFiles(t *testing.T) {
	t.Parallel()
	files, err := Files(filepath.Join("testdata", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(filepath.Join("testdata", "docs"), f)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{"bom.md", "guides/bare.md", "guides/deploy.md", "guides/notes.txt", "intro.md"}
	if !reflect.DeepEqual(rel, want) {
		t.Errorf("Files = %v, want %v", rel, want)
	}
}

func TestHeading(t *testing.T) {
	t.Parallel()
	tests := []struct{ md, want string }{
		{"# A\n", "A"},
		{"   ### Indented three ###\n", "Indented three"},
		{"    # four spaces is code\n", ""},
		{"#\n# Second\n", "Second"},
		{"####### seven is not a heading\n", ""},
		{"~~~\n# in fence\n~~~\n# After\n", "After"},
		{"---\nunterminated: front matter\n# Heading\n", "Heading"},
		{"# C# ##\n", "C#"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Heading(tt.md); got != tt.want {
			t.Errorf("Heading(%q) = %q, want %q", tt.md, got, tt.want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	a := []assay.Document{{ID: "a", Title: "T", Text: "x"}, {ID: "b", Text: "y"}}
	b := []assay.Document{{ID: "b", Text: "y", Path: "b.md", Lang: "en"}, {ID: "a", Title: "T", Text: "x"}}
	if Fingerprint(a) != Fingerprint(b) {
		t.Error("order, path and lang changed the fingerprint")
	}
	if !strings.HasPrefix(Fingerprint(a), "sha256:") || len(Fingerprint(a)) != len("sha256:")+64 {
		t.Errorf("fingerprint %q is not sha256:<64 hex>", Fingerprint(a))
	}
	// Length-prefixing: moving bytes between fields changes the hash.
	c := []assay.Document{{ID: "a", Title: "Tx", Text: ""}, {ID: "b", Text: "y"}}
	if Fingerprint(a) == Fingerprint(c) {
		t.Error("moving text into the title kept the fingerprint")
	}
	d := []assay.Document{{ID: "a", Title: "T", Text: "x!"}, {ID: "b", Text: "y"}}
	if Fingerprint(a) == Fingerprint(d) {
		t.Error("editing a text kept the fingerprint")
	}
	// Golden value: the canonical bytes are a contract.
	if got, want := Fingerprint(nil), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Errorf("empty corpus fingerprint = %s, want %s", got, want)
	}
	// The same documents from a directory and from JSONL agree.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.md"), []byte("# X\nbody\n"), 0o644)
	fromDir, _ := Load(dir)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(`{"_id": "x.md", "title": "X", "text": "# X\nbody\n"}` + "\n"))
	zw.Close()
	gz := filepath.Join(dir, "c.jsonl.gz")
	os.WriteFile(gz, buf.Bytes(), 0o644)
	fromJSONL, err := Load(gz)
	if err != nil {
		t.Fatal(err)
	}
	if Fingerprint(fromDir) != Fingerprint(fromJSONL) {
		t.Error("a directory and a JSONL file with the same documents have different fingerprints")
	}
}

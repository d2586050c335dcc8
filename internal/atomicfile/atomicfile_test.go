package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := os.WriteFile(p, []byte("good old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A write that fails part way leaves the old file and no temporary one.
	boom := errors.New("renderer failed")
	err := Replace(p, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), p+": ") {
		t.Errorf("err = %v, want the renderer's error after the path", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "good old content" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	// A write that succeeds replaces it whole.
	if err := Replace(p, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("file holds %q, want new", b)
	}
	// A symlink is written through, and stays a symlink.
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, func(w io.Writer) error { _, err := io.WriteString(w, "via link"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "via link" {
		t.Errorf("target holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	// A missing directory is an error naming the path, not a temporary file.
	missing := filepath.Join(dir, "no", "out.json")
	err = Replace(missing, func(w io.Writer) error { return nil })
	if err == nil || strings.Contains(err.Error(), ".out.json.") || !strings.HasPrefix(err.Error(), missing+": ") {
		t.Errorf("err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left: %v, want out.json and link.json", entries)
	}
}

// A locked temporary file is not abandoned while its writer holds it, and
// is once the writer is gone (closed without committing); Commit replaces
// the file whole, with mode 0644, and leaves no temporary file.
func TestCreateLocked(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	f, err := Create(p, Options{Sync: true, Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(f.Name()); !IsTemp(base, "run.json") || strings.HasSuffix(base, ".new") {
		t.Errorf("temporary name %q", base)
	}
	if CanLock && Abandoned(f.Name()) {
		t.Error("a live writer's temporary file is taken for abandoned")
	}
	io.WriteString(f, "{}")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{}" {
		t.Errorf("file holds %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	left, err := Create(p, Options{Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	left.Close() // the writer dies: its lock goes
	if CanLock && !Abandoned(left.Name()) {
		t.Error("a dead writer's temporary file is not taken for abandoned")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files: %v, want run.json and the abandoned temporary file", entries)
	}
}

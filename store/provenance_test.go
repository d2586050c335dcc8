package store_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/assay-eval/assay/store"
)

func TestRedact(t *testing.T) {
	in := map[string]any{
		"url":     "https://user:hunter2@api.example.com/search?q=x&api_key=abc123",
		"headers": map[string]any{"Authorization": "Bearer sk-live", "X-Api-Key": "k", "Accept": "application/json"},
		"body":    map[string]any{"query": "{{query}}", "session_token": "t0k", "keywords": "fine", "monkey": "fine"},
		"env":     "prefix-s3cr3t-value-suffix",
		"list":    []any{map[string]any{"password": "p"}, "plain"},
		"cookie":  "a=b",
		"key":     "x",
		"timeout": 5,
		"empty":   map[string]string{"client_secret": ""},
	}
	got := store.Redact(in, "s3cr3t-value", "ab")
	want := map[string]any{
		"url":     "https://user:REDACTED@api.example.com/search?api_key=REDACTED&q=x",
		"headers": map[string]any{"Authorization": "[redacted]", "X-Api-Key": "[redacted]", "Accept": "application/json"},
		"body":    map[string]any{"query": "{{query}}", "session_token": "[redacted]", "keywords": "fine", "monkey": "fine"},
		"env":     "prefix-[redacted]-suffix",
		"list":    []any{map[string]any{"password": "[redacted]"}, "plain"},
		"cookie":  "[redacted]",
		"key":     "[redacted]",
		"timeout": 5,
		"empty":   map[string]any{"client_secret": ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Redact:\n got %#v\nwant %#v", got, want)
	}
	if in["headers"].(map[string]any)["Authorization"] != "Bearer sk-live" {
		t.Error("Redact changed its input")
	}
	if store.Redact(nil) != nil {
		t.Error("Redact(nil) != nil")
	}
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "access_token": true, "Authorization": true, "Proxy-Authorization": true,
		"api_key": true, "apiKey": true, "x-api-key": true, "key": true, "private-key": true,
		"client_secret": true, "PASSWORD": true, "passwd": true, "Set-Cookie": true, "auth": true,
		"keywords": false, "monkey": false, "query": false, "author": false, "tokenizer_name": true,
		"k": false, "url": false,
	} {
		if got := store.IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v; want %v", name, got, want)
		}
	}
}

func TestGitInfo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if store.GitInfo(dir) != nil {
		t.Fatal("GitInfo outside a repository is not nil")
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if store.GitInfo(dir) != nil {
		t.Error("GitInfo of a repository without commits is not nil")
	}
	writeFile(t, filepath.Join(dir, "suite.yaml"), "assay: 1\n")
	git("add", "suite.yaml")
	git("commit", "-q", "-m", "one")
	g := store.GitInfo(dir)
	if g == nil || len(g.Commit) != 40 || g.Dirty {
		t.Fatalf("GitInfo = %+v; want a 40-hex commit, clean", g)
	}
	os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("x"), 0o644)
	if g := store.GitInfo(dir); g == nil || g.Dirty {
		t.Errorf("an untracked file made the tree dirty: %+v", g)
	}
	os.WriteFile(filepath.Join(dir, "suite.yaml"), []byte("assay: 1\nname: x\n"), 0o644)
	if g := store.GitInfo(filepath.Join(dir)); g == nil || !g.Dirty {
		t.Errorf("a modified tracked file did not make the tree dirty: %+v", g)
	}
}

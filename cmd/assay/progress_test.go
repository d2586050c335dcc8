package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Off a terminal, assay run writes plain progress lines on stderr (issue
// 14 point 4). The clock given moves 20 s a reading, so that every tenth
// of the run is past the quiet start.
func TestRunProgressLinesOffTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var suite, trace strings.Builder
	suite.WriteString("assay: 1\nname: progress\ncases:\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&suite, "  - {id: c%02d, query: q, expect: {answer_includes: [yes]}}\n", i)
		ans := "yes"
		if i == 3 {
			ans = "no"
		}
		fmt.Fprintf(&trace, `{"case": "c%02d", "trial": 0, "answer": %q, "refused": false}`+"\n", i, ans)
	}
	for name, body := range map[string]string{"suite.yaml": suite.String(), "trace.jsonl": trace.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clock := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Now: func() time.Time { clock = clock.Add(20 * time.Second); return clock }}
	args := []string{"run", filepath.Join(dir, "suite.yaml"), "--no-store", "-j", "1", "--target", "replay:" + filepath.Join(dir, "trace.jsonl")}
	if code := run(context.Background(), args, env); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines on stderr, want 10 (one per tenth):\n%s", len(lines), stderr.String())
	}
	if want := "assay: progress 10/10 cases (100%)  passed 9  failed 1  errors 0  elapsed 3m20s"; lines[9] != want {
		t.Errorf("last line %q, want %q", lines[9], want)
	}
}

package trecgen

import (
	"bytes"
	"strings"
	"testing"
)

func TestDeterministic(t *testing.T) {
	var q1, r1, q2, r2 bytes.Buffer
	p := Defaults()
	p.DupFrac, p.UnjudgedFrac = 0.2, 0.1
	if err := Write(&q1, &r1, p); err != nil {
		t.Fatal(err)
	}
	if err := Write(&q2, &r2, p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(q1.Bytes(), q2.Bytes()) || !bytes.Equal(r1.Bytes(), r2.Bytes()) {
		t.Fatal("same parameters gave different bytes")
	}
	p.Seed = 2
	var q3, r3 bytes.Buffer
	Write(&q3, &r3, p)
	if bytes.Equal(r1.Bytes(), r3.Bytes()) {
		t.Fatal("another seed gave the same run")
	}
}

func TestShape(t *testing.T) {
	var q, r bytes.Buffer
	p := Defaults()
	p.Queries, p.Depth, p.ExtraFrac, p.MissingFrac, p.TieFrac = 10, 20, 0, 0, 0
	if err := Write(&q, &r, p); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(r.String()), "\n")
	if len(lines) != 200 {
		t.Fatalf("run has %d lines, want 200", len(lines))
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) != 6 || f[1] != "Q0" || f[5] != "synthrun" {
			t.Fatalf("bad run line %q", l)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(q.String()), "\n") {
		if len(strings.Fields(l)) != 4 {
			t.Fatalf("bad qrels line %q", l)
		}
	}
}

func TestAppendScore(t *testing.T) {
	for s, want := range map[int]string{0: "0.0000", 15: "0.0015", 123456: "12.3456", -5: "-0.0005"} {
		if got := string(appendScore(nil, s)); got != want {
			t.Errorf("appendScore(%d) = %q, want %q", s, got, want)
		}
	}
}

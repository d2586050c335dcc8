package suite

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/largetest"
)

// streamAll is every case st.Cases yields.
func streamAll(st *Streamed) ([]assay.Case, error) {
	var cases []assay.Case
	err := st.Cases(func(c assay.Case) error {
		cases = append(cases, c)
		return nil
	})
	return cases, err
}

// sameStream checks Stream against LoadWith on the suite at path: the same
// error, or the same suite, number of cases, fingerprint and cases (twice,
// since each Cases call reads them afresh). It returns whether the cases
// were streamed.
func sameStream(t *testing.T, path string) bool {
	t.Helper()
	want, werr := LoadWith(path, LoadOptions{})
	st, err := Stream(path, LoadOptions{})
	if werr != nil || err != nil {
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Errorf("%s: Stream error\n  %v\nLoadWith error\n  %v", path, err, werr)
		}
		return false
	}
	streamed := st.Suite.Cases == nil
	header := *want
	header.Cases = nil
	if streamed && !reflect.DeepEqual(*st.Suite, header) {
		t.Errorf("%s: Stream's suite\n  %+v\nLoadWith's\n  %+v", path, *st.Suite, header)
	}
	if !streamed && !reflect.DeepEqual(st.Suite, want) {
		t.Errorf("%s: Stream's whole-loaded suite differs from LoadWith's", path)
	}
	if st.N != len(want.Cases) {
		t.Errorf("%s: N %d, want %d", path, st.N, len(want.Cases))
	}
	if fp := Fingerprint(want); st.Fingerprint != fp {
		t.Errorf("%s: fingerprint %s, want %s", path, st.Fingerprint, fp)
	}
	for pass := range 2 {
		got, err := streamAll(st)
		if err != nil {
			t.Errorf("%s: Cases (pass %d): %v", path, pass+1, err)
		} else if !reflect.DeepEqual(got, want.Cases) {
			t.Errorf("%s: Cases (pass %d) differ from LoadWith's:\n  %+v\n  %+v", path, pass+1, got, want.Cases)
		}
	}
	return streamed
}

// TestStreamGenerated runs Stream and LoadWith on generated suites with a
// corpus and json_schema files, as JSONL suites and with a cases file.
func TestStreamGenerated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte(`{"id": "d1", "text": "hello"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"type": "object"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"type": 3}`), 0o644)
	for i, c := range []struct {
		name, src string
		stream    bool
	}{
		{"corpus-and-schema", "assay: 1\ncorpus: corpus.jsonl\ngates: [pass_rate >= 0.5]\ncases:\n  - id: a\n    query: hello there\n    relevant: [d1]\n    expect:\n      json_schema: s.json\n  - id: b\n    query: q\n    expect:\n      json_schema: s.json\n", true},
		{"bad-schema", "assay: 1\ncases:\n  - id: a\n    query: q\n    expect:\n      json_schema: bad.json\n", false},
		{"missing-corpus", "assay: 1\ncorpus: nowhere\ncases:\n  - id: a\n    query: q\n", false},
		{"empty-corpus-dir", "assay: 1\ncorpus: .\ncases:\n  - id: a\n    query: q\n", true},
	} {
		p := filepath.Join(dir, fmt.Sprintf("g%02d.yaml", i))
		os.WriteFile(p, []byte(c.src), 0o644)
		if sameStream(t, p) {
			t.Errorf("%s: a YAML suite is streamed", c.name)
		}
		jp, cp, ok := jsonlForms(t, dir, fmt.Sprintf("g%02d", i), []byte(c.src))
		if !ok {
			t.Fatalf("%s: not written as JSONL", c.name)
		}
		for _, q := range []string{jp, cp} {
			if got := sameStream(t, q); got != c.stream {
				t.Errorf("%s as %s: streamed %v, want %v", c.name, filepath.Base(q), got, c.stream)
			}
		}
	}
}

// fixtureSuites returns the repository's suites for the stream tests: the
// native suites of the testscripts' archives, suite/testdata, the examples
// and the seed fixtures. The archives that hold a native suite are written
// once per test binary, each to a directory of its own under one temporary
// directory that TestMain removes; the tests only read what is there.
func fixtureSuites(t *testing.T) []string {
	t.Helper()
	fixtures.once.Do(func() { fixtures.suites, fixtures.err = writeFixtureSuites() })
	if fixtures.err != nil {
		t.Fatal(fixtures.err)
	}
	out := append([]string(nil), fixtures.suites...)
	local, _ := filepath.Glob("testdata/formats/*")
	for _, pat := range []string{"testdata/*/*.yaml", "testdata/*/*.json", "testdata/*/*/*.yaml", "testdata/*/*/*.json", "../examples/*/*.yaml", "../../shared/seed-fixtures/*/*.yaml", "../../shared/seed-fixtures/*/*.json"} {
		m, _ := filepath.Glob(pat)
		local = append(local, m...)
	}
	for _, p := range local {
		if !strings.HasSuffix(p, ".golden.json") {
			out = append(out, p)
		}
	}
	return out
}

// fixtures holds the testscripts' native suites, written once (fixtureSuites).
var fixtures struct {
	once   sync.Once
	dir    string
	suites []string
	err    error
}

// writeFixtureSuites writes every testscript archive that holds a native
// suite to a directory of its own and returns the suites' paths.
func writeFixtureSuites() ([]string, error) {
	scripts, _ := filepath.Glob("../testdata/script/*.txtar")
	if len(scripts) == 0 {
		return nil, fmt.Errorf("no testscripts found")
	}
	root, err := os.MkdirTemp("", "suite-fixtures-")
	if err != nil {
		return nil, err
	}
	fixtures.dir = root
	var out []string
	for _, script := range scripts {
		data, err := os.ReadFile(script)
		if err != nil {
			return nil, err
		}
		files := parseTxtar(data)
		var suites []string
		for name, data := range files {
			if (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".json")) && looksNative(data) {
				suites = append(suites, name)
			}
		}
		if len(suites) == 0 {
			continue
		}
		dir := filepath.Join(root, strings.TrimSuffix(filepath.Base(script), ".txtar"))
		for name, data := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return nil, err
			}
		}
		for _, name := range suites {
			out = append(out, filepath.Join(dir, filepath.FromSlash(name)))
		}
	}
	return out, nil
}

// TestStreamFixtures runs Stream and LoadWith on the repository's suites
// (fixtureSuites).
func TestStreamFixtures(t *testing.T) {
	t.Parallel()
	n, streamed := 0, 0
	for _, p := range fixtureSuites(t) {
		n++
		if sameStream(t, p) {
			streamed++
		}
	}
	t.Logf("%d suites, %d streamed", n, streamed)
}

func TestStreamChanged(t *testing.T) {
	t.Parallel()
	src := `{"assay": 1}` + "\n" + `{"id": "a", "query": "first"}` + "\n" + `{"id": "b", "query": "second"}` + "\n"
	setup := func(t *testing.T) (string, *Streamed) {
		p := filepath.Join(t.TempDir(), "suite.jsonl")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := Stream(p, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if st.Suite.Cases != nil {
			t.Fatal("not streamed")
		}
		return p, st
	}
	wantChanged := func(t *testing.T, p string, err error) {
		t.Helper()
		if want := p + ": changed while the run was reading it; run again"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	t.Run("case-added-is-an-error", func(t *testing.T) {
		p, st := setup(t)
		os.WriteFile(p, []byte(src+`{"id": "c", "query": "third"}`+"\n"), 0o644)
		_, err := streamAll(st)
		wantChanged(t, p, err)
	})
	t.Run("same-size-same-time-is-an-error", func(t *testing.T) {
		p, st := setup(t)
		fi, _ := os.Stat(p)
		os.WriteFile(p, []byte(strings.Replace(src, "first", "FIRST", 1)), 0o644)
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
		_, err := streamAll(st)
		wantChanged(t, p, err)
	})
	t.Run("no-longer-decodes-is-an-error", func(t *testing.T) {
		p, st := setup(t)
		fi, _ := os.Stat(p)
		os.WriteFile(p, []byte(strings.Replace(src, `"query": "first"`, `"qurey": "first"`, 1)), 0o644)
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
		_, err := streamAll(st)
		wantChanged(t, p, err)
	})
	t.Run("changed-during-the-pass-is-an-error", func(t *testing.T) {
		p, st := setup(t)
		first := true
		err := st.Cases(func(c assay.Case) error {
			if first {
				first = false
				os.WriteFile(p, []byte(strings.Replace(src, "second", "other", 1)), 0o644)
				os.Chtimes(p, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
			}
			return nil
		})
		wantChanged(t, p, err)
	})
	t.Run("removed-is-an-error", func(t *testing.T) {
		p, st := setup(t)
		os.Remove(p)
		if _, err := streamAll(st); err == nil || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("error %v, want one naming %s", err, p)
		}
	})
	t.Run("yield-error-is-returned", func(t *testing.T) {
		_, st := setup(t)
		stop := fmt.Errorf("stop")
		n := 0
		err := st.Cases(func(c assay.Case) error { n++; return stop })
		if err != stop || n != 1 {
			t.Errorf("error %v after %d cases, want stop after 1", err, n)
		}
	})
}

func TestStreamDuplicates(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var b strings.Builder
	b.WriteString(`{"assay": 1}` + "\n")
	for i := range 300 {
		fmt.Fprintf(&b, `{"id": "c%d", "query": "q%d"}`+"\n", i, i)
	}
	unique := write("unique.jsonl", b.String())
	dup := write("dup.jsonl", b.String()+`{"id": "c17", "query": "again"}`+"\n")
	wantErr := dup + `:302:8: duplicate case id "c17" (first at line 19)`
	check := func(t *testing.T) {
		if _, err := Stream(dup, LoadOptions{}); err == nil || err.Error() != wantErr {
			t.Errorf("error %v, want %s", err, wantErr)
		}
		sameStream(t, dup)
		sameStream(t, unique)
	}
	t.Run("found", func(t *testing.T) {
		check(t)
		if st, _ := Stream(unique, LoadOptions{}); st == nil || st.Suite.Cases != nil {
			t.Error("a suite of unique ids is not streamed")
		}
	})
	t.Run("found-when-every-hash-collides", func(t *testing.T) {
		defer func(h func(string) uint64) { idHash = h }(idHash)
		idHash = func(string) uint64 { return 7 }
		check(t)
		if st, _ := Stream(unique, LoadOptions{}); st == nil || len(st.Suite.Cases) != 300 {
			t.Error("on a hash collision, Stream does not load the suite whole")
		}
	})
}

func TestCheckManifestStreamed(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"s.yaml":      "assay: 1\ncorpus: docs\ncases: cases.jsonl\n",
		"cases.jsonl": `{"id": "a", "query": "q", "relevant": ["a.md"], "expect": {"json_schema": "s.json"}}` + "\n" + `{"id": "b", "query": "r", "expect": {"json_schema": "s.json"}}` + "\n",
		"s.json":      `{"type": "object"}`,
		"docs/a.md":   "# A\n",
	})
	p := filepath.Join(dir, "s.yaml")
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteManifest(s); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"type": "object", "required": ["x"]}`), 0o644)
	s, _ = Load(p)
	st, err := Stream(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Suite.Cases != nil {
		t.Fatal("not streamed")
	}
	want := CheckManifest(s)
	if len(want) != 1 || !strings.HasPrefix(want[0], "s.json changed") {
		t.Fatalf("CheckManifest %q, want s.json changed", want)
	}
	if got := CheckManifestStreamed(st); !reflect.DeepEqual(got, want) {
		t.Errorf("CheckManifestStreamed %q, want %q", got, want)
	}
	if st.Fingerprint != Fingerprint(s) {
		t.Error("fingerprints differ")
	}
}

// TestFingerprintSchemaFile: editing a json_schema file changes the
// fingerprint, through Load and through Stream.
func TestFingerprintSchemaFile(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"s.yaml": "assay: 1\ncases:\n  - {id: a, query: q, expect: {json_schema: s.json}}\n",
		"s.json": `{"type": "object"}`,
	})
	p := filepath.Join(dir, "s.yaml")
	before, _ := Stream(p, LoadOptions{})
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"type": "array"}`), 0o644)
	after, _ := Stream(p, LoadOptions{})
	s, _ := Load(p)
	if before.Fingerprint == after.Fingerprint || after.Fingerprint != Fingerprint(s) {
		t.Errorf("fingerprints %s, %s, Load %s", before.Fingerprint, after.Fingerprint, Fingerprint(s))
	}
}

// liveAfterCases streams the suite at path and returns the live heap,
// after a collection, at the last case of a full Cases pass.
func liveAfterCases(t *testing.T, path string, n int) uint64 {
	t.Helper()
	st, err := Stream(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Suite.Cases != nil || st.N != n {
		t.Fatalf("not streamed (N %d)", st.N)
	}
	var live uint64
	i := 0
	err = st.Cases(func(c assay.Case) error {
		i++
		if i == n {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			live = ms.HeapInuse
		}
		return nil
	})
	if err != nil || i != n {
		t.Fatalf("%d cases: %v", i, err)
	}
	runtime.KeepAlive(st)
	return live
}

// TestStreamMemory: the heap a streamed suite and a pass over its cases
// hold does not grow with the number of cases. 10,000 against 100,000 cases
// with a 2 MiB bound fails on anything kept above 23 bytes a case, as
// 20,000 against 200,000 with 4 MiB did, at half the cost.
func TestStreamMemory(t *testing.T) {
	largetest.Skip(t, "writes and reads a 100,000-case suite")
	if raceEnabled {
		t.Skip("writes and reads a 100,000-case suite (not under -race)")
	}
	small := largeSuite(t, 10000, "jsonl")
	large := largeSuite(t, 100000, "jsonl")
	runtime.GC()
	s := liveAfterCases(t, small, 10000)
	l := liveAfterCases(t, large, 100000)
	t.Logf("live heap at the end of the pass: %d KiB for 10k cases, %d KiB for 100k", s>>10, l>>10)
	if l > s+4<<20 {
		t.Errorf("live heap grows with the cases: %d KiB for 10k, %d KiB for 100k", s>>10, l>>10)
	}
}

// BenchmarkStream100k streams a 100,000-case JSONL suite: Stream (one
// validating pass) and one Cases pass.
func BenchmarkStream100k(b *testing.B) {
	p := largeSuite(b, 100000, "jsonl")
	b.ReportAllocs()
	for b.Loop() {
		st, err := Stream(p, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := st.Cases(func(assay.Case) error { n++; return nil }); err != nil || n != 100000 || st.Suite.Cases != nil {
			b.Fatalf("%d cases: %v", n, err)
		}
	}
}

// TestStreamChangedMidPassYieldsOnlyValidatedCases edits a suite larger
// than the split's buffer while Cases reads it: a case added at the end,
// or a case changed past the part already read, must not reach the caller
// (a run would observe, grade and store a case Stream never validated);
// the pass stops with the changed error instead.
func TestStreamChangedMidPassYieldsOnlyValidatedCases(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"assay": 1}` + "\n")
	const n = 5000 // about 250 KB, several buffers of the line reader
	for i := range n {
		fmt.Fprintf(&b, `{"id": "c%04d", "query": "question number %04d"}`+"\n", i, i)
	}
	src := b.String()
	for _, tc := range []struct {
		name, edited, bad string
	}{
		{"case-appended", src + `{"id": "extra", "query": "not validated"}` + "\n", "extra"},
		{"late-case-changed", strings.Replace(src, "question number 4990", "QUESTION NUMBER 4990", 1), "QUESTION NUMBER 4990"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "suite.jsonl")
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := Stream(p, LoadOptions{})
			if err != nil || st.Suite.Cases != nil {
				t.Fatalf("not streamed: %v", err)
			}
			got := 0
			err = st.Cases(func(c assay.Case) error {
				if got == 0 {
					os.WriteFile(p, []byte(tc.edited), 0o644)
					later := time.Now().Add(time.Hour)
					os.Chtimes(p, later, later)
				}
				got++
				if c.ID == tc.bad || c.Query == tc.bad {
					t.Errorf("case %d (%s %q) yielded after the file changed: it was never validated", got, c.ID, c.Query)
				}
				if got > n {
					t.Errorf("%d cases yielded, the suite Stream validated has %d", got, n)
				}
				return nil
			})
			if want := p + ": changed while the run was reading it; run again"; err == nil || err.Error() != want {
				t.Errorf("error %v, want %q", err, want)
			}
		})
	}
}

// FuzzStream: on any input, Stream and its Cases agree with LoadWith (the
// same error, or the same suite, fingerprint and cases), for a YAML or JSON
// suite and for the same text as a JSONL cases file.
func FuzzStream(f *testing.F) {
	for _, c := range jsonlCases() {
		f.Add([]byte(c.src))
	}
	for _, p := range []string{"testdata/kb/suite.yaml", "testdata/kb/suite.json"} {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			f.Add(b)
		}
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "cf.yaml"), []byte("assay: 1\ncases: cases.jsonl\n"), 0o644)
	f.Fuzz(func(t *testing.T, src []byte) {
		name := "s.yaml"
		if len(bytes.TrimLeft(src, " \n")) > 0 && bytes.TrimLeft(src, " \n")[0] == '{' {
			name = "s.json"
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		sameStream(t, p)
		if err := os.WriteFile(filepath.Join(dir, "cases.jsonl"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		sameStream(t, filepath.Join(dir, "cf.yaml"))
	})
}

// TestStreamChecksEachLineBeforeItsCase: the run's pass checks each case
// line against what Stream validated before the case is yielded, even when
// the file keeps its size and time (a digest summed over the pass would
// only see it at the end), and a line moved to another number (a blank
// line inserted) is not the line validated: the case's position changed.
func TestStreamChecksEachLineBeforeItsCase(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"assay": 1}` + "\n")
	const n = 3000
	for i := range n {
		fmt.Fprintf(&b, `{"id": "c%04d", "query": "question number %04d"}`+"\n", i, i)
	}
	src := b.String()
	for _, tc := range []struct {
		name, edited, bad string
	}{
		{"same-size-same-time", strings.Replace(src, "question number 2990", "QUESTION NUMBER 2990", 1), "QUESTION NUMBER 2990"},
		{"line-moved", strings.Replace(src, `{"id": "c2990"`, "\n"+`{"id": "c2990"`, 1), "c2990"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "suite.jsonl")
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			st, err := Stream(p, LoadOptions{})
			if err != nil || st.Suite.Cases != nil {
				t.Fatalf("not streamed: %v", err)
			}
			got := 0
			err = st.Cases(func(c assay.Case) error {
				if got == 0 {
					if err := os.WriteFile(p, []byte(tc.edited), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
						t.Fatal(err)
					}
				}
				got++
				if c.ID == tc.bad || c.Query == tc.bad {
					t.Errorf("case %d (%s %q) yielded after the file changed: it was never validated", got, c.ID, c.Query)
				}
				return nil
			})
			if want := p + ": changed while the run was reading it; run again"; err == nil || err.Error() != want {
				t.Errorf("error %v, want %q", err, want)
			}
			if got != 2990 {
				t.Errorf("%d cases yielded, want the 2,990 before the changed line", got)
			}
		})
	}
}

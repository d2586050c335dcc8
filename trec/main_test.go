package trec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// memIO serves named files from a map; a file is seekable like os.File.
func memIO(files map[string]string, stdin string) (IO, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return IO{
		Stdin:  strings.NewReader(stdin),
		Stdout: &out,
		Stderr: &errb,
		Open: func(name string) (io.ReadCloser, error) {
			s, ok := files[name]
			if !ok {
				return nil, fs.ErrNotExist
			}
			return struct {
				*strings.Reader
				io.Closer
			}{strings.NewReader(s), io.NopCloser(nil)}, nil
		},
	}, &out, &errb
}

func run(t *testing.T, files map[string]string, args string) (int, string, string) {
	t.Helper()
	sys, out, errb := memIO(files, files["<stdin>"])
	code := Main(strings.Fields(args), sys)
	return code, out.String(), errb.String()
}

const qrels3 = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 1\n"

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  map[string]string
		args   string
		code   int
		stderr string
	}{
		{"empty qrels", map[string]string{"q": "", "r": "1 Q0 a 1 1 t\n"}, "q r", 2,
			"trec_eval.get_qrels: Cannot read qrels file 'q'\ntrec_eval: Quit in file 'q'\n"},
		{"missing qrels file", map[string]string{"r": "1 Q0 a 1 1 t\n"}, "q r", 2,
			"trec_eval.get_qrels: Cannot read qrels file 'q'\ntrec_eval: Quit in file 'q'\n"},
		{"empty run", map[string]string{"q": qrels3, "r": ""}, "q r", 2,
			"trec_eval.get_results: Cannot read results file 'r'\ntrec_eval: Quit in file 'r'\n"},
		{"qrels line with 3 fields", map[string]string{"q": "1 0 a 1\n1 0 b\n", "r": "1 Q0 a 1 1 t\n"}, "q r", 2,
			"trec_eval.get_qrels: Malformed line 2\ntrec_eval: Quit in file 'q'\n"},
		{"qrels line with 5 fields", map[string]string{"q": "1 0 a 1 9\n", "r": "1 Q0 a 1 1 t\n"}, "q r", 2,
			"trec_eval.get_qrels: Malformed line 1\ntrec_eval: Quit in file 'q'\n"},
		{"blank qrels line", map[string]string{"q": "1 0 a 1\n\n1 0 b 1\n", "r": "1 Q0 a 1 1 t\n"}, "q r", 2,
			"trec_eval.get_qrels: Malformed line 2\ntrec_eval: Quit in file 'q'\n"},
		{"second comment line is data", map[string]string{"q": "# one\n# two\n1 0 a 1\n", "r": "1 Q0 a 1 1 t\n"}, "q r", 2,
			"trec_eval.get_qrels: Malformed line 1\ntrec_eval: Quit in file 'q'\n"},
		{"run line with 5 fields, counted in data lines", map[string]string{"q": qrels3,
			"r": "# comment\n1 Q0 a 1 1 t\n\n   \n1 Q0 b 2 0.5\n"}, "q r", 2,
			"trec_eval.get_results: Malformed line 2\ntrec_eval: Quit in file 'r'\n"},
		{"duplicate docno in a ranking", map[string]string{"q": qrels3,
			"r": "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n"}, "q r", 4,
			"trec_eval.form_res_qrels: duplicate docs atrec_eval: Can't calculate measure 'num_ret'\n"},
		{"duplicate docno in the qrels", map[string]string{"q": "1 0 a 1\n1 0 a 0\n", "r": "1 Q0 a 1 3 t\n"}, "-m map q r", 4,
			"trec_eval.form_res_rels: duplicate docs a\ntrec_eval: Can't calculate measure 'map'\n"},
		{"duplicate docnos in the qrels: the smallest is named", map[string]string{"q": "1 0 z 1\n1 0 b 1\n1 0 c 1\n1 0 z 0\n1 0 b 2\n", "r": "1 Q0 a 1 3 t\n"}, "-m map q r", 4,
			"trec_eval.form_res_rels: duplicate docs b\ntrec_eval: Can't calculate measure 'map'\n"},
		{"unknown measure", map[string]string{"q": qrels3, "r": "1 Q0 a 1 1 t\n"}, "-m bogus q r", 1,
			"trec_eval: illegal measure 'bogus'\n"},
		{"empty parameters", map[string]string{"q": qrels3, "r": "1 Q0 a 1 1 t\n"}, "-m P. q r", 1,
			"trec_eval: improper measure in parameter 'P'\ntrec_eval: illegal measure 'P'\n"},
		{"zero cutoff", map[string]string{"q": qrels3, "r": "1 Q0 a 1 1 t\n"}, "-m P.0,5 q r", 2,
			"trec_eval: Negative cutoff detected\ntrec_eval: Cannot initialize measure 'P'\n"},
		{"duplicate cutoff", map[string]string{"q": qrels3, "r": "1 Q0 a 1 1 t\n"}, "-m P.5,5 q r", 2,
			"trec_eval: duplicate cutoffs detected\ntrec_eval: Cannot initialize measure 'P'\n"},
		{"utility needs 4 coefficients", map[string]string{"q": qrels3, "r": "1 Q0 a 1 1 t\n"}, "-q -m utility.1,2 q r", 4,
			"trec_eval.calc_utility: improper number of coefficients\ntrec_eval: Can't calculate measure 'utility'\n"},
		{"no topic in common", map[string]string{"q": qrels3, "r": "9 Q0 a 1 1 t\n"}, "q r", 7,
			"assay trec: skipped 2 qrels topics not in the run (1 2); trec_eval v10.0 would stop, -c scores them\n" +
				"trec_eval: No queries with both results and relevance info\n"},
		{"one positional argument", map[string]string{"q": qrels3}, "q", 1, Usage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, tt.files, tt.args)
			if code != tt.code || stderr != tt.stderr {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
}

func TestDuplicateBeyondCutoffIsNotDetected(t *testing.T) {
	t.Parallel()
	code, out, stderr := run(t, map[string]string{"q": qrels3,
		"r": "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n"}, "-M2 -m num_ret q r")
	if code != 0 || out != "num_ret               \tall\t2\n" {
		t.Errorf("exit %d, out %q, stderr %q", code, out, stderr)
	}
}

func TestTieBreakAndTopicOrder(t *testing.T) {
	t.Parallel()
	// Equal scores (spelled differently) rank by docno descending, so "b"
	// (non-relevant) comes first and "a" (relevant) second; topic "10"
	// prints before "2".
	files := map[string]string{
		"q": "2 0 a 1\n2 0 b 0\n10 0 z 1\n",
		"r": "2 Q0 a 1 1.5 t\n2 Q0 b 2 +1.50 t\n10 Q0 z 1 0x10 t\n",
	}
	code, out, _ := run(t, files, "-q -m recip_rank q r")
	want := "recip_rank            \t10\t1.0000\n" +
		"recip_rank            \t2\t0.5000\n" +
		"recip_rank            \tall\t0.7500\n"
	if code != 0 || out != want {
		t.Errorf("exit %d\ngot\n%s\nwant\n%s", code, out, want)
	}
}

func TestMissingTopic(t *testing.T) {
	t.Parallel()
	files := map[string]string{"q": qrels3, "r": "1 Q0 a 1 1 t\n"}
	// Without -c the topic absent from the run is skipped (trec_eval 9.x).
	code, out, _ := run(t, files, "-q -m P.1 -m num_rel q r")
	want := "num_rel               \t1\t2\nP_1                   \t1\t1.0000\n" +
		"num_rel               \tall\t2\nP_1                   \tall\t1.0000\n"
	if code != 0 || out != want {
		t.Errorf("without -c: exit %d\ngot\n%s\nwant\n%s", code, out, want)
	}
	// With -c it scores 0 and counts in the mean; num_rel keeps its count.
	code, out, _ = run(t, files, "-q -c -m P.1 -m num_rel q r")
	want = "num_rel               \t1\t2\nP_1                   \t1\t1.0000\n" +
		"num_rel               \t2\t1\nP_1                   \t2\t0.0000\n" +
		"num_rel               \tall\t3\nP_1                   \tall\t0.5000\n"
	if code != 0 || out != want {
		t.Errorf("with -c: exit %d\ngot\n%s\nwant\n%s", code, out, want)
	}
}

func TestCompleteNumRelIgnoresLevel(t *testing.T) {
	t.Parallel()
	// -c -l 2: per-topic num_rel counts grade >= 2, the summary counts rel > 0.
	files := map[string]string{"q": qrels3, "r": "1 Q0 a 1 1 t\n"}
	code, out, _ := run(t, files, "-c -l2 -m num_rel q r")
	if want := "num_rel               \tall\t3\n"; code != 0 || out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestJudgedOnlyEmptyRankingIsNaN(t *testing.T) {
	t.Parallel()
	files := map[string]string{"q": qrels3, "r": "1 Q0 zz 1 1 t\n"}
	code, out, _ := run(t, files, "-J -m iprec_at_recall.0 -m num_ret q r")
	want := "num_ret               \tall\t0\niprec_at_recall_0.00  \tall\t  -nan\n"
	if code != 0 || out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestRunFromStdinAndInterleavedTopics(t *testing.T) {
	t.Parallel()
	grouped := "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 x 1 1 t\n2 Q0 y 2 0 t\n"
	interleaved := "1 Q0 a 1 3 t\n2 Q0 x 1 1 t\n1 Q0 b 2 2 t\n2 Q0 y 2 0 t\n1 Q0 c 3 1 t2\n"
	_, want, _ := run(t, map[string]string{"q": qrels3, "r": grouped}, "-q -m all_trec q r")
	_, got, _ := run(t, map[string]string{"q": qrels3, "r": interleaved}, "-q -m all_trec q r")
	want = strings.Replace(want, "all\tt\n", "all\tt2\n", 1) // runid: the tag of the last line
	if got != want {
		t.Errorf("interleaved run differs:\n%s", lineDiff(want, got))
	}
	_, got, _ = run(t, map[string]string{"q": qrels3, "<stdin>": interleaved}, "-q -m all_trec q -")
	if got != want {
		t.Errorf("stdin run differs:\n%s", lineDiff(want, got))
	}
}

func TestArgs(t *testing.T) {
	t.Parallel()
	cfg, _, _, err := parseArgs(strings.Fields("-qc -l2 -M 100 -N50 -J -n --measure=P.5 -m map q r"))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.PerTopic || !cfg.Complete || cfg.RelLevel != 2 || cfg.MaxRet != 100 || cfg.NumDocs != 50 ||
		!cfg.JudgedOnly || !cfg.NoSummary || cfg.Qrels != "q" || cfg.Run != "r" ||
		strings.Join(cfg.Measures, " ") != "P.5 map" {
		t.Errorf("parsed %+v", cfg)
	}
}

func TestAtof(t *testing.T) {
	t.Parallel()
	tests := map[string]float64{
		"1.5": 1.5, "1.50": 1.5, "+1.5": 1.5, "1.5e0": 1.5, "1.5abc": 1.5, "abc": 0,
		"0x10": 16, "-2": -2, "1e-3": 0.001, "1e": 1, ".5": 0.5, "5.": 5, "-.25": -0.25,
		"12345678901234567890": 12345678901234567890, "0x1p-2": 0.25, "INF": inf, "-inf": -inf,
	}
	for in, want := range tests {
		if got := parseFloatPrefix([]byte(in)); got != want {
			t.Errorf("atof(%q) = %v, want %v", in, got, want)
		}
	}
	if v := parseFloatPrefix([]byte("nan")); v == v {
		t.Errorf("atof(nan) = %v", v)
	}
}

var inf = func() float64 { var z float64; return 1 / z }()

func TestOnlyRunidSkipsRankingChecks(t *testing.T) {
	t.Parallel()
	// trec_eval forms no ranking for runid/num_q alone, so a duplicate
	// docno goes unreported.
	files := map[string]string{"q": qrels3, "r": "1 Q0 a 1 3 t\n1 Q0 a 2 2 t\n"}
	code, out, stderr := run(t, files, "-m runid -m num_q q r")
	if want := "runid                 \tall\tt\nnum_q                 \tall\t1\n"; code != 0 || out != want {
		t.Errorf("exit %d, out %q, stderr %q", code, out, stderr)
	}
}

func TestQrelsIsNeverStdin(t *testing.T) {
	t.Parallel()
	files := map[string]string{"r": "1 Q0 a 1 1 t\n", "<stdin>": qrels3}
	code, _, stderr := run(t, files, "- r")
	if code != 2 || !strings.Contains(stderr, "Cannot read qrels file '-'") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestSortItems(t *testing.T) {
	t.Parallel()
	// Blocks of 9 descending scores, each block above the previous one: few
	// adjacent inversions but every line far from its place.
	var items []item
	for b := 0; b < 500; b++ {
		for k := 9; k > 0; k-- {
			items = append(items, item{score: float64(b*10 + k), doc: []byte{byte('a' + k)}})
		}
	}
	items = append(items, item{score: 5, doc: []byte("b")}, item{score: 5, doc: []byte("c")})
	sortItems(items)
	for i := 1; i < len(items); i++ {
		if cmpItems(items[i-1], items[i]) > 0 {
			t.Fatalf("not sorted at %d: %v before %v", i, items[i-1], items[i])
		}
	}
	if string(items[len(items)-1-4].doc) == "" {
		t.Fatal("lost a doc")
	}
}

// keySort gives cmpItems' order on shuffled items with ties, scores that
// differ only in their last bits, zeros of both signs, infinities and NaN.
func TestKeySortMatchesCmpItems(t *testing.T) {
	t.Parallel()
	nan := inf - inf
	scores := []float64{0, negZero, 1, math.Nextafter(1, 2), math.Nextafter(1, 0), -1, 2.5, inf, -inf, nan, 1e300, -1e-300}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{2, 17, 1000, 5000, -1000, -5000} {
		// n < 0: -n evenly spread scores (sortWords' buckets), with ties.
		spread := n < 0
		n = max(n, -n)
		items := make([]item, n)
		for i := range items {
			items[i] = item{score: scores[rng.IntN(len(scores))], doc: []byte(itoa(rng.IntN(n / 2)))}
			if spread {
				items[i].score = float64(rng.IntN(4*n)) / 7
			}
		}
		want := slices.Clone(items)
		slices.SortFunc(want, cmpItems)
		var s sorter
		s.keySort(items)
		for i := range want {
			if cmpItems(items[i], want[i]) != 0 {
				t.Fatalf("n=%d: at %d got %v %q, want %v %q", n, i, items[i].score, items[i].doc, want[i].score, want[i].doc)
			}
		}
	}
}

var negZero = math.Copysign(0, -1)

// trec_eval leaves the place of a NaN score undefined; assay ranks it below
// every number, whatever the order of the lines.
func TestNaNScoreRanksLastInAnyLineOrder(t *testing.T) {
	t.Parallel()
	lines := []string{"1 Q0 a 1 nan t\n", "1 Q0 b 2 3 t\n", "1 Q0 c 3 nan t\n", "1 Q0 x 4 2 t\n", "1 Q0 d 5 1 t\n"}
	q := "1 0 a 1\n1 0 c 1\n1 0 d 1\n"
	_, want, _ := run(t, map[string]string{"q": q, "r": "1 Q0 b 1 3 t\n1 Q0 x 2 2 t\n1 Q0 d 3 1 t\n1 Q0 c 4 -inf t\n1 Q0 a 5 -inf t\n"}, "-q -m all_trec q r")
	for k := range lines {
		r := strings.Join(append(slices.Clone(lines[k:]), lines[:k]...), "")
		code, got, errs := run(t, map[string]string{"q": q, "r": r}, "-q -m all_trec q r")
		if code != 0 || got != want {
			t.Errorf("lines from %d: exit %d %s\n%s", k, code, errs, lineDiff(want, got))
		}
	}
}

// topicOf finds every qrels topic by its qid, short (one word) or long,
// and nothing else.
func TestTopicOf(t *testing.T) {
	t.Parallel()
	qids := []string{"1", "12345678", "123456789", "a", "a\x00", "query_00001", "query_00002", "q\xff\xff\xff\xff\xff\xff\xff"}
	var b strings.Builder
	for _, id := range qids {
		b.WriteString(id + " 0 d 1\n")
	}
	q, err := ParseQrels([]byte(b.String()), "q")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range qids {
		for _, in := range [][]byte{[]byte(id), []byte(id + " 0 d 1\n")[:len(id)]} { // short and long capacity
			ti, ok := q.topicOf(in)
			if !ok || q.topics[ti].qid != id {
				t.Errorf("topicOf(%q) = %d, %v", id, ti, ok)
			}
		}
	}
	for _, id := range []string{"", "2", "1234567", "123456780", "1234567890", "a\x00\x00", "query_0000", "query_00003", "q\xff\xff\xff\xff\xff\xff"} {
		if ti, ok := q.topicOf([]byte(id + "  ")[:len(id)]); ok {
			t.Errorf("topicOf(%q) = %d (%q), want none", id, ti, q.topics[ti].qid)
		}
	}
}

// Docnos of 128 bytes and more (two-byte lengths in the store) and longer
// than a store block are collected intact from an interleaved run.
func TestLongDocnosCollected(t *testing.T) {
	t.Parallel()
	var grouped, interleaved []string
	var q strings.Builder
	for _, qid := range []string{"1", "2"} {
		for k, n := range []int{1, 127, 128, 300, 5000, 9000, 7} {
			doc := strings.Repeat(string(rune('a'+k)), n) + qid
			grouped = append(grouped, fmt.Sprintf("%s Q0 %s %d %d t\n", qid, doc, k, 100-k))
			if k%2 == 0 {
				fmt.Fprintf(&q, "%s 0 %s 1\n", qid, doc)
			}
		}
	}
	for k := range 7 {
		interleaved = append(interleaved, grouped[k], grouped[7+k])
	}
	_, want, _ := run(t, map[string]string{"q": q.String(), "r": strings.Join(grouped, "")}, "-q -m all_trec q r")
	for _, args := range []string{"-q -m all_trec q r", "-q -m all_trec q -"} {
		files := map[string]string{"q": q.String(), "r": strings.Join(interleaved, ""), "<stdin>": strings.Join(interleaved, "")}
		if code, got, errs := run(t, files, args); code != 0 || got != want {
			t.Errorf("%s: exit %d %s\n%s", args, code, errs, lineDiff(want, got))
		}
	}
	if !strings.Contains(want, "num_rel_ret           \t1\t4\n") {
		t.Errorf("the judged long docnos were not all retrieved:\n%s", want)
	}
}

// TestSkippedTopicsNote: qrels topics missing from the run are skipped and
// named on stderr (the count and the first ids in qid order); -c scores them
// and says nothing.
func TestSkippedTopicsNote(t *testing.T) {
	t.Parallel()
	var q strings.Builder
	for i := range 8 {
		fmt.Fprintf(&q, "t%d 0 a 1\n", i)
	}
	files := map[string]string{"q": q.String(), "r": "t3 Q0 a 1 1 x\n"}
	code, out, errs := run(t, files, "-m map q r")
	if code != 0 || out != "map                   \tall\t1.0000\n" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	want := "assay trec: skipped 7 qrels topics not in the run (t0 t1 t2 t4 t5 ...); trec_eval v10.0 would stop, -c scores them\n"
	if errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	code, out, errs = run(t, files, "-c -m map q r")
	if code != 0 || errs != "" || out != "map                   \tall\t0.1250\n" {
		t.Errorf("-c: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = run(t, map[string]string{"q": "t1 0 a 1\nt2 0 a 1\n", "r": "t2 Q0 a 1 1 x\n"}, "q r")
	if want := "assay trec: skipped 1 qrels topic not in the run (t1); trec_eval v10.0 would stop, -c scores them\n"; code != 0 || errs != want {
		t.Errorf("one topic: exit %d, stderr %q, want %q", code, errs, want)
	}
}

// plainDecimal8, the eight-bytes-at-once path for scores such as 32.1805,
// gives exactly parseFloatPrefix's value for every token it accepts, and
// accepts every plain decimal of up to 8 bytes; tokens are checked over
// an alphabet with signs, exponents, a second '.', and bytes around the
// digits.
func TestPlainDecimal8MatchesAtof(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("0123456789..+-e/:x \x00\xff")
	for range 300000 {
		n := 1 + rng.IntN(8)
		tok := make([]byte, n, 8)
		for i := range tok {
			if rng.IntN(4) == 0 {
				tok[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				tok[i] = byte('0' + rng.IntN(10))
			}
		}
		// Bytes after the token (another field) must not matter.
		word := append(tok[:n:n], []byte("9.9.9.9.")[:8-n]...)
		got, ok := plainDecimal8(binary.LittleEndian.Uint64(word), n)
		plain := bytes.Count(tok, []byte(".")) <= 1 && len(bytes.Trim(tok, "0123456789.")) == 0 && bytes.ContainsAny(tok, "0123456789")
		if ok != plain {
			t.Fatalf("%q: ok %v, want %v", tok, ok, plain)
		}
		if want := parseFloatPrefix(tok); ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: %v, parseFloatPrefix %v", tok, got, want)
		}
	}
}

// compareDocs, the tie order of a ranking, is bytes.Compare for docnos of
// any length, prefixes, NUL and high bytes, whether or not the bytes after
// a docno can be loaded with it.
func TestCompareDocsIsBytesCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("ab\x00\xff09")
	gen := func() []byte {
		b := make([]byte, rng.IntN(11), 16)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if rng.IntN(2) == 0 {
			return b[:len(b):len(b)] // no room past the docno
		}
		return append(b, "zzzzzzzz"...)[:len(b)] // bytes after it
	}
	for range 200000 {
		a, b := gen(), gen()
		if rng.IntN(4) == 0 {
			b = append([]byte(nil), a...)
			if len(b) > 0 && rng.IntN(2) == 0 {
				b = b[:rng.IntN(len(b))]
			}
		}
		if got, want := compareDocs(a, b), bytes.Compare(a, b); got != want {
			t.Fatalf("compareDocs(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

package engine

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/shareddata"
)

func sharedDir(tb testing.TB) string { return shareddata.Dir(tb) }

// benchQuery is one judged query of a test collection.
type benchQuery struct {
	ID, Text  string
	Judgments map[string]int
}

// sciFact is the SciFact test split, read once per test binary: the
// quality and memory tests both use it, and reading it (gzip and JSON) is
// a good part of their CPU. Neither changes it.
var sciFact struct {
	sync.Mutex
	docs []assay.Document
	qs   []benchQuery
}

// loadSciFact is the BEIR SciFact test split (readSciFact), read the first
// time it is asked for.
func loadSciFact(t testing.TB) ([]assay.Document, []benchQuery) {
	t.Helper()
	sciFact.Lock()
	defer sciFact.Unlock()
	if sciFact.docs == nil {
		sciFact.docs, sciFact.qs = readSciFact(t)
	}
	return sciFact.docs, sciFact.qs
}

// readSciFact reads the BEIR SciFact test split (test-only loader; the
// suite package reads BEIR directories for the CLI).
func readSciFact(t testing.TB) ([]assay.Document, []benchQuery) {
	t.Helper()
	dir := filepath.Join(sharedDir(t), "datasets", "scifact")
	f, err := os.Open(filepath.Join(dir, "corpus.jsonl.gz"))
	if err != nil {
		t.Skipf("scifact: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var docs []assay.Document
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var d struct{ ID, Title, Text string }
		var raw struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		d.ID, d.Title, d.Text = raw.ID, raw.Title, raw.Text
		docs = append(docs, assay.Document{ID: d.ID, Title: d.Title, Text: d.Text})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	qtext := map[string]string{}
	qf, err := os.ReadFile(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(qf)), "\n") {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		qtext[q.ID] = q.Text
	}
	qr, err := os.ReadFile(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*benchQuery{}
	var qs []benchQuery
	var order []string
	for i, line := range strings.Split(strings.TrimSpace(string(qr)), "\n") {
		if i == 0 {
			continue
		}
		f := strings.Split(line, "\t")
		g, _ := strconv.Atoi(f[2])
		q := byID[f[0]]
		if q == nil {
			q = &benchQuery{ID: f[0], Text: qtext[f[0]], Judgments: map[string]int{}}
			byID[f[0]] = q
			order = append(order, f[0])
		}
		q.Judgments[f[1]] = g
	}
	for _, id := range order {
		qs = append(qs, *byID[id])
	}
	return docs, qs
}

// loadCranfield reads Cranfield 1400: qrel query n is the n-th query of
// cran.qry; relevance code >= 1 is relevant, -1 is dropped; the graded
// nDCG gain is 5 - code (1 = complete answer -> 4).
func loadCranfield(t testing.TB) ([]assay.Document, []benchQuery) {
	t.Helper()
	dir := filepath.Join(sharedDir(t), "datasets", "cranfield")
	all, err := os.ReadFile(filepath.Join(dir, "cran.all.1400"))
	if err != nil {
		t.Skipf("cranfield: %v", err)
	}
	field := regexp.MustCompile(`(?m)^\.([TABW])\s*$`)
	var docs []assay.Document
	for _, rec := range regexp.MustCompile(`(?m)^\.I `).Split(string(all), -1)[1:] {
		id, body, _ := strings.Cut(rec, "\n")
		locs := field.FindAllStringSubmatchIndex(body, -1)
		var title, text strings.Builder
		for i, l := range locs {
			end := len(body)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			v := body[l[1]:end]
			switch body[l[2]:l[3]] {
			case "T":
				title.WriteString(v)
			case "W":
				text.WriteString(v)
			}
		}
		docs = append(docs, assay.Document{ID: strings.TrimSpace(id), Title: strings.TrimSpace(title.String()), Text: strings.TrimSpace(text.String())})
	}
	qf, err := os.ReadFile(filepath.Join(dir, "cran.qry"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []benchQuery
	for i, rec := range regexp.MustCompile(`(?m)^\.I `).Split(string(qf), -1)[1:] {
		_, body, _ := strings.Cut(rec, ".W")
		qs = append(qs, benchQuery{ID: strconv.Itoa(i + 1), Text: strings.TrimSpace(body), Judgments: map[string]int{}})
	}
	qr, err := os.ReadFile(filepath.Join(dir, "cranqrel"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(qr)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		n, _ := strconv.Atoi(f[0])
		code, _ := strconv.Atoi(f[2])
		if n < 1 || n > len(qs) || code < 1 {
			continue
		}
		qs[n-1].Judgments[f[1]] = 5 - code
	}
	var judged []benchQuery
	for _, q := range qs {
		if len(q.Judgments) > 0 {
			judged = append(judged, q)
		}
	}
	return docs, judged
}

package suite

// Foreign golden-set formats (docs/suite.md#formats-read-besides-the-native-one).
//
// Besides the native format, Load reads the golden sets other projects
// publish, as they are, and resolves them to the same assay.Suite the native
// loader builds: Name (the file's base name without extension, or the
// directory's name), Path, Dir, Format, Defaults.K, Metrics, Gain (linear;
// exponential for GNO's formats), RecallOver (GNO's formats: relevant),
// RefusalMarkers (nil: by each case's tags.lang; Knowlex's own), Gates, Cases (ID, Query,
// Tags, Judgments, Expect, Source "file:line") and Corpus with CorpusSource.
// `assay import FORMAT SRC` writes the native equivalent (see WriteNative);
// loading that file gives an equal suite.
//
// A format is recognised by the shape of its content, not by its file name:
//
//	JSON array of {query, relevantDocs|judgments}         gno (gno-adversarial when items carry category or queryModes)
//	JSON array of {question, expectedTopics}              gno-ask
//	JSON object with queries and topK|modes|version       gno-bench (GNO's `gno bench` fixture)
//	JSON object with questions and corpus                 knowlex
//	YAML top-level list of {id, query, ...}               kebab
//	directory with queries.jsonl and qrels/               beir
//	qrels file (qid iter docno rel), or a directory
//	holding one qrels file and one topics file            trec
//	directory with cran.all.1400, cran.qry, cranqrel      cranfield
//
// A document with a top-level `assay` key is native and is never claimed here.
//
// # GNO (gmickel/gno evals/fixtures)
//
// queries.json is a list of {id, query, language, collection?, relevantDocs[],
// judgments[{docid, relevance}], note?}. Each item is a case: judgments keep
// their graded relevance; a relevantDocs entry without a judgment is added
// with grade 1 only when the item has no judgments (GNO's nDCG gains from
// judgments alone), and relevantDocs is also the
// case's Relevant list with the suite's RecallOver "relevant" and Gain
// exponential: GNO's scorer divides recall by the relevantDocs count (a
// document judged >= 1 outside it is not relevant to recall, mrr, map, hit)
// and uses gain 2^rel-1, and assay reproduces its published baseline case
// for case. language → tags.lang,
// collection → tags.collection, note → guards. hybrid-adversarial.json has the
// same shape plus category (→ tags.category) and queryModes, GNO's per-mode
// rewrites of the query; assay runs the case's query only, so queryModes are
// ignored (Format "gno-adversarial"). The corpus is the `corpus/` directory
// beside the file (ids are paths relative to it, which is what GNO's docids
// are); without one the suite has no corpus and a warning says so.
//
// ask-cases.json is a list of {id, question, expectedTopics[], mockSources[]}
// (Format "gno-ask"). question → query. expectedTopics → answer_includes_any
// over all the topics (case-insensitive): GNO scores topic coverage as a
// fraction, so requiring every topic (answer_includes) would fail almost every
// honest answer, while requiring at least one keeps the case a real check
// that the answer is on topic. mockSources, the documents GNO's mock retriever
// feeds the answerer, become binary judgments (grade 1), so retrieval metrics
// are reported for these cases too.
//
// # kebab (altair823/kebab kebab-eval)
//
// golden_queries.yaml and multi_hop_golden.yaml are top-level lists of {id,
// query, lang, expected_doc_ids, expected_chunk_ids, must_contain, forbidden,
// difficulty, group}. expected_doc_ids → relevant (grade 1); must_contain →
// answer_includes and forbidden → answer_excludes, both case-sensitive as in
// kebab; lang, difficulty and group → tags (lint checks that the members of a
// group share one expected document set). expected_chunk_ids name chunks of
// kebab's own store, not documents: they are not evaluated and a warning says
// so. kebab evaluates its own ingested workspace, so the suite has no corpus
// (Corpus nil, CorpusSource ""), and reference checks are skipped by lint.
//
// # Knowlex (craftstack docs/eval/golden_qa.json)
//
// {version, description, thresholds{minPassRate, maxP95LatencyMs},
// corpus[{title, content}], questions[...]}. The corpus is inline and a
// document's id and title are its title (CorpusSource "inline").
// expectedSubstrings → answer_includes, expectedSubstringsAny →
// answer_includes_any, both case-insensitive as Knowlex checks them.
// expectedDocumentTitle → retrieves: [title]: Knowlex checks that the title is
// among the documents the answer was built from (its x-knowlex-docs header, a
// context-recall proxy), which is what retrieves checks over the first k
// results. expectedRefusal → refusal: true, judged by Knowlex's own refusal
// markers (do not contain, cannot answer, no information), which the suite
// keeps as its refusal_markers. category → tags.category. thresholds → the gates
// `pass_rate >= minPassRate` and `p95_latency_ms <= maxP95LatencyMs`, with the
// threshold's line as their source. description → the suite's description.
//
// # BEIR directories
//
// corpus.jsonl or corpus.jsonl.gz, queries.jsonl ({_id, text}) and
// qrels/<split>.tsv (`query-id corpus-id score`, header line skipped).
// LoadOptions.Split picks the split ("test" when empty). Only the queries that
// have judgments in the split become cases, in the order of queries.jsonl;
// a score of 0 is kept as a judged non-relevant document. The suite measures
// assay.DefaultMetrics plus recall@100 and recall@1000 (the figures BEIR
// baselines publish), and Defaults.K is 1000 so that recall@1000 sees a full
// ranking. The suite's name is the directory's name.
//
// # TREC
//
// A qrels file (`qid iter docno rel`, whitespace-separated) with its topics,
// either given as the qrels file itself (the topics are found beside it) or as
// a directory holding both. Qrels files are named qrels, qrels.*, *.qrels or
// *qrels*.txt; topics files topics, topics.*, *.topics, queries.tsv or
// queries.txt. Topics are TSV (`qid<TAB>query`) or TREC SGML (`<top>` with
// `<num>` and `<title>`; "Number:" and "Topic:" prefixes are dropped; the
// title is the query). A negative grade is read as 0 (judged non-relevant),
// as trec_eval gives it no gain. A topic without judgments is not a case; a
// judged topic missing from the topics file is a warning. The corpus is
// corpus/ or corpus.jsonl(.gz) beside the qrels, when there is one.
//
// # Cranfield
//
// The classic SMART-format collection (cran.all.1400, cran.qry, cranqrel).
// Its quirks: cranqrel numbers queries 1..225 by position in cran.qry, whose
// own .I numbers have gaps, so qrel query n is the n-th query of the file
// (as ir_datasets does); case ids are those positions. Relevance codes follow
// Cleverdon (1 = complete answer .. 4 = minimum interest, -1 = no interest);
// they are mapped to grades 5 - code (1→4, 2→3, 3→2, 4→1) and -1 → 0, so
// binary relevance is code >= 1 and nDCG gains rise with relevance. Document
// ids are the .I numbers; the title is .T and the text is .W (which repeats
// the title in the original; two abstracts are empty and get the title),
// each folded to one line. The corpus is read from cran.all.1400, so
// `assay import` writes it out as JSONL.
//
// # assay import
//
// Import (and the `assay import` command) loads a golden set with LoadFormat
// and writes the native suite with WriteNative: settings equal to the native
// defaults are left out, judgments all of grade 1 are written as
// `relevant:`, others as `judgments:`, gates as their expressions. A corpus
// directory or JSONL file is referenced by a path relative to the output
// (absolute when they share no directory but the root); a corpus without
// such a file (Knowlex's inline one, Cranfield's SMART file) is written beside
// the output as <name>.corpus.jsonl. Loading the written file gives a suite
// equal to the original in everything but its paths, Format and Source
// positions, with the same Fingerprint.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
)

// Format names of the foreign formats, as Suite.Format and as `assay import`
// takes them.
const (
	FormatGNO            = "gno"
	FormatGNOAsk         = "gno-ask"
	FormatGNOAdversarial = "gno-adversarial"
	FormatGNOBench       = "gno-bench"
	FormatKebab          = "kebab"
	FormatKnowlex        = "knowlex"
	FormatBEIR           = "beir"
	FormatTREC           = "trec"
	FormatCranfield      = "cranfield"
)

// ImportFormats lists the format names LoadFormat accepts, in the order the
// CLI shows them.
var ImportFormats = []string{FormatGNO, FormatGNOAsk, FormatGNOBench, FormatKebab, FormatKnowlex, FormatBEIR, FormatTREC, FormatCranfield, FormatNuggets, FormatCSV, FormatJSONL, FormatRagas, FormatDeepEval, FormatPromptfoo}

// DetectFormat reports the foreign format of path ("" when it is none of
// them, for example a native suite), as Load decides it.
func DetectFormat(path string) string {
	f := kindOf(path).foreign
	if f == FormatGNOAdversarial {
		return FormatGNO
	}
	return f
}

// LoadFormat loads path as the named foreign format (one of ImportFormats;
// "gno-adversarial" is accepted as "gno"), whatever its shape suggests.
func LoadFormat(format, path string, o LoadOptions) (*assay.Suite, error) {
	switch format {
	case FormatGNOAdversarial:
		format = FormatGNO
	case FormatGNO, FormatGNOAsk, FormatGNOBench, FormatKebab, FormatKnowlex, FormatBEIR, FormatTREC, FormatCranfield, FormatNuggets,
		FormatCSV, FormatJSONL, FormatRagas, FormatDeepEval, FormatPromptfoo:
	default:
		return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(ImportFormats, ", "))
	}
	return loadFormat(format, path, nil, o)
}

// loadFormat dispatches to the loader of format; data is the file's content
// when the caller already read it.
func loadFormat(format, path string, data []byte, o LoadOptions) (*assay.Suite, error) {
	switch format {
	case FormatBEIR:
		return loadBEIR(path, o)
	case FormatTREC:
		return loadTREC(path)
	case FormatCranfield:
		return loadCranfield(path)
	}
	if data == nil {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, Errorf(path, 0, 0, "%v", unwrapPathError(err))
		}
		if fi.IsDir() {
			return nil, Errorf(path, 0, 0, "is a directory; the %s format is a file", format)
		}
		if data, err = boundedfile.ReadFile(path, boundedfile.Suite); err != nil {
			return nil, Errorf(path, 0, 0, "%v", boundedfile.Reason(err))
		}
	}
	switch format {
	case FormatGNO, FormatGNOAdversarial:
		return loadGNO(path, data, false)
	case FormatGNOAsk:
		return loadGNO(path, data, true)
	case FormatGNOBench:
		return loadGNOBench(path, data)
	case FormatKebab:
		return loadKebab(path, data)
	case FormatKnowlex:
		return loadKnowlex(path, data)
	case FormatNuggets:
		return loadNuggetizer(path, data)
	case FormatCSV, FormatJSONL:
		return loadTable(path, data, format == FormatCSV, o, tableOptions{format: format, defaults: tableDefaults})
	case FormatRagas:
		return loadTable(path, data, isCSVData(data), o, ragasTable)
	case FormatDeepEval:
		return loadTable(path, data, isCSVData(data), o, deepevalTable)
	case FormatPromptfoo:
		return loadPromptfoo(path, data, o)
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

// sniffFormat looks at path's content and names its foreign format; for a
// file it also returns the bytes it read.
func sniffFormat(path string) (string, []byte) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", nil
	}
	if fi.IsDir() {
		return sniffDir(path), nil
	}
	f, err := boundedfile.Open(path, boundedfile.Suite)
	if err != nil {
		return "", nil // the loader reports why
	}
	defer f.Close()
	// A large native suite is told from its start, so that it is not held
	// whole in memory only to learn it is native (package doc: streaming).
	prefix := make([]byte, sniffPrefix)
	n, err := io.ReadFull(f, prefix)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return sniffBytes(prefix[:n]), prefix[:n]
	case err != nil:
		return "", nil
	case nativeByPrefix(prefix):
		return "", nil
	}
	data, err := boundedfile.ReadFile(path, boundedfile.Suite)
	if err != nil {
		return "", nil
	}
	return sniffBytes(data), data
}

// sniffPrefix is how much of a file sniffFormat reads to tell a native suite.
const sniffPrefix = 64 << 10

// nativeByPrefix reports whether prefix, the start of a longer file, is
// surely that of a file sniffBytes finds no foreign format in: a JSON
// object with a top-level "assay" key, or text whose first line is neither
// a list item (kebab) nor a qrels line. False means: read it all.
func nativeByPrefix(prefix []byte) bool {
	body := trimBOM(prefix)
	trimmed := strings.TrimLeft(string(body[:min(len(body), 64)]), " \t\r\n")
	switch {
	case strings.HasPrefix(trimmed, "["):
		return false
	case strings.HasPrefix(trimmed, "{"):
		return jsonHasTopKey(body, "assay")
	}
	i := bytes.LastIndexByte(body, '\n')
	if i < 0 {
		return false
	}
	lines := body[:i+1]
	first := firstYAMLLine(lines)
	return first != "" && !strings.HasPrefix(first, "-") && !looksLikeQrels(lines)
}

func sniffDir(dir string) string {
	if fileExists(filepath.Join(dir, "queries.jsonl")) && dirExists(filepath.Join(dir, "qrels")) {
		return FormatBEIR
	}
	if fileExists(filepath.Join(dir, "cran.all.1400")) && fileExists(filepath.Join(dir, "cran.qry")) && fileExists(filepath.Join(dir, "cranqrel")) {
		return FormatCranfield
	}
	if q, t := findTRECFiles(dir); q != "" && t != "" {
		return FormatTREC
	}
	return ""
}

func sniffBytes(data []byte) string {
	body := trimBOM(data)
	trimmed := strings.TrimLeft(string(body[:min(len(body), 64)]), " \t\r\n")
	switch {
	case strings.HasPrefix(trimmed, "["):
		return sniffJSONArray(body)
	case strings.HasPrefix(trimmed, "{"):
		if jsonHasTopKey(body, "assay") {
			return "" // a native suite (as below, without decoding all of a large file)
		}
		keys := jsonTopKeys(body)
		if keys["assay"] {
			return ""
		}
		if keys["questions"] && keys["corpus"] {
			return FormatKnowlex
		}
		if keys["queries"] && (keys["topK"] || keys["modes"] || keys["candidateLimit"] || keys["version"]) {
			return FormatGNOBench
		}
		return ""
	}
	if looksLikeQrels(body) {
		return FormatTREC
	}
	if looksLikeKebab(body) {
		return FormatKebab
	}
	return ""
}

// gnoShape names the GNO format an object's keys belong to, or "".
func gnoShape(keys map[string]bool) string {
	switch {
	case keys["question"] && keys["expectedTopics"]:
		return FormatGNOAsk
	case keys["query"] && (keys["relevantDocs"] || keys["judgments"]):
		if keys["category"] || keys["queryModes"] {
			return FormatGNOAdversarial
		}
		return FormatGNO
	}
	return ""
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// unwrapPathError drops the path an *os.PathError repeats.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// newSuite returns a suite resolved with the native defaults.
func newSuite(path, format string) *assay.Suite {
	name := filepath.Base(path)
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	dir := path
	if !dirExists(path) {
		dir = filepath.Dir(path)
	}
	return &assay.Suite{
		Name:     name,
		Path:     path,
		Dir:      dir,
		Format:   format,
		Defaults: assay.Defaults{K: assay.DefaultK},
		Metrics:  append([]string(nil), assay.DefaultMetrics...),
		Gain:     assay.GainLinear,
	}
}

// keysSorted returns m's keys in order.
func keysSorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

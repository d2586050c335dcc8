package suite

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/internal/yamltree"
	"github.com/assay-eval/assay/metric"
)

// Field names of the native format (docs/suite.md), in the order the docs
// list them.
var (
	suiteFields    = []string{"assay", "name", "description", "corpus", "defaults", "metrics", "gain", "margins", "prices", "recall_over", "cluster", "refusal_markers", "tools", "analyzer", "embeddings", "rerank", "gates", "judge", "nugget_no_vital", "judgments_file", "cases"}
	defaultsFields = []string{"k", "case_sensitive", "judge"}
	caseFields     = []string{"id", "query", "tags", "guards", "k", "relevant", "judgments", "expect", "surface", "vars", "review", "provenance", "turns"}
	expectFields   = []string{"answer_includes", "answer_includes_any", "answer_excludes", "answer_matches", "case_sensitive",
		"retrieves", "cites", "cites_any", "cited", "cited_any", "cites_only_surfaced", "no_citations", "refusal",
		"calls_tool", "calls_any_tool", "never_calls", "stops_at_approval", "outcome", "json_schema", "max_latency_ms", "judge", "nuggets", "tools", "max_turns"}
	docFields = []string{"id", "title", "text", "path", "lang", "metadata"}
)

// NativeVersion is the value of `assay:` this package reads.
const NativeVersion = 1

// parsed is a native suite file read into a Suite, with the structural
// problems found and the lines of each case's fields (for lint).
type parsed struct {
	suite *assay.Suite
	probs []problem
	// caseLines[i][field] is the line of case i's field key; "" is the case.
	caseLines []fieldLines
	// lines of suite-level fields.
	topLines map[string]int
	// warns are lint warnings noticed while parsing (Load ignores them).
	warns []problem
	// casesFile is the `cases:` value when it names a JSONL file (as
	// written, relative to the suite file), and casesLine/casesCol where.
	casesFile           string
	casesLine, casesCol int
	// judgmentsFile is the judgments_file: value as written, and
	// judgmentsLine its line.
	judgmentsFile string
	judgmentsLine int
}

// parseNative reads the native format from src; file names the file in
// positions. It touches no files: the corpus path, the cases file and
// json_schema files are resolved by load, so that parsing is pure and
// fuzzable. The whole document is parsed at once (parseWhole).
func parseNative(file string, src []byte) (p *parsed, err error) {
	return parseWhole(file, bytes.TrimPrefix(src, []byte("\ufeff"))) // a UTF-8 byte order mark is not part of the text
}

// parseBody parses text, YAML, into its one document's body (a positioned
// tree): documents of comments only are skipped, a second document is the
// error second returns, and no document at all is a nil body. The suite
// file and a judge file go through it.
func parseBody(file, text string, second func(d yamltree.Doc) error) (*ynode, error) {
	docs, err := yamltree.Parse(text)
	if err != nil {
		return nil, yamlError(file, err)
	}
	var body *ynode
	for _, d := range docs {
		if d.Body == nil {
			continue
		}
		if body != nil {
			return nil, second(d)
		}
		body = d.Body
	}
	return body, nil
}

// parseWhole parses src as one YAML document.
func parseWhole(file string, src []byte) (p *parsed, err error) {
	if err := checkNesting(file, src); err != nil {
		return nil, err
	}
	body, err := parseBody(file, string(src), func(d yamltree.Doc) error {
		return Errorf(file, d.Line, d.Col, "a suite file holds one YAML document; found a second one")
	})
	if err != nil {
		return nil, err
	}
	if body == nil {
		return nil, Errorf(file, 1, 1, "empty suite file: the native format starts with \"assay: %d\"", NativeVersion)
	}
	r := &nodeReader{file: file}
	body, err = r.resolve(body)
	if err != nil {
		return nil, err
	}
	if body.Kind != yamltree.Map {
		line, col := nodePos(body)
		return nil, Errorf(file, line, col, "a native suite is a mapping that starts with \"assay: %d\", got %s", NativeVersion, nodeDesc(body))
	}
	return decodeNative(r, body, nil, 0)
}

// decodeNative reads a resolved suite mapping. When pieces is set, the
// cases are read from it instead of from the mapping's "cases" value.
func decodeNative(r *nodeReader, body *ynode, pieces caseSource, nPieces int) (*parsed, error) {
	return decodeNativeWith(r, body, pieces, nPieces, nil, nil)
}

// decodeNativeWith is decodeNative that, when onCase is set, hands each
// case to it instead of keeping it (see nativeDecoder.onCase), and calls
// onHeader, when set, before the first case item of pieces.
func decodeNativeWith(r *nodeReader, body *ynode, pieces caseSource, nPieces int, onHeader func(*parsed) error, onCase caseFunc) (*parsed, error) {
	d := &nativeDecoder{r: r, p: &parsed{suite: &assay.Suite{Format: "native"}, topLines: map[string]int{}}, pieces: pieces, nPieces: nPieces, onHeader: onHeader, onCase: onCase}
	if err := d.top(body); err != nil {
		return nil, err
	}
	oneLineProblems(d.p.probs)
	return d.p, nil
}

// checkNesting refuses YAML (or JSON) text nested deeper than
// nesting.MaxDepth or holding a string or comment longer than
// nesting.MaxScalar, before goccy/go-yaml, whose cost explodes on such
// text, sees it.
func checkNesting(file string, src []byte) error {
	if e := nesting.YAML(src); e != nil {
		return Errorf(file, e.Line, e.Col, "%s", e.Msg)
	}
	return nil
}

// yamlError turns an error of yamltree.Parse into one positioned line.
func yamlError(file string, err error) error {
	var se *yamltree.SyntaxError
	if errors.As(err, &se) && se.Line > 0 {
		return Errorf(file, se.Line, se.Col, "%s", tidyYAMLMessage(se.Msg))
	}
	msg := err.Error()
	if se != nil {
		msg = se.Msg
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return Errorf(file, 1, 1, "%s", tidyYAMLMessage(msg))
}

var dupKeyRE = regexp.MustCompile(`^mapping key "(.*)" already defined at \[(\d+):\d+\]$`)

func tidyYAMLMessage(m string) string {
	if sm := dupKeyRE.FindStringSubmatch(m); sm != nil {
		return fmt.Sprintf("duplicate field %q (first at line %s)", sm[1], sm[2])
	}
	m = strings.TrimSpace(m)
	if i := strings.IndexByte(m, '\n'); i >= 0 {
		m = m[:i]
	}
	return strings.TrimSuffix(m, ".")
}

type nativeDecoder struct {
	r *nodeReader
	p *parsed
	// pieces, when set, yields the case items in order: the lines of a
	// JSONL suite after its header (which has no "cases" field).
	pieces  caseSource
	nPieces int
	// onCase, when set, receives each case in order instead of Cases and
	// caseLines, with the lines of its fields and the lint warnings noticed
	// while reading it (valid only during the call: the decoder reuses
	// them). Nothing is kept per case, not even its id (the caller finds
	// duplicates). A case with a problem, or any problem before it, stops
	// the decoding with errCaseProblem.
	onCase caseFunc
	// onHeader, when set, is called with what was read of the suite once
	// every field but the cases is, before the case items of pieces; an
	// error it returns stops the decoding.
	onHeader func(*parsed) error
	// jsonl: the mapping is the header line of a JSONL suite, whose cases
	// are pieces (every other line), and has no "cases" field.
	jsonl bool
	// caseFile, when set, is the file the case items are in, when it is not
	// the suite file: the problems and warnings of the cases name it.
	caseFile string
}

// A caseFunc receives a decoded case, the lines of its fields and the lint
// warnings noticed while reading it.
type caseFunc func(c assay.Case, lines fieldLines, warns []problem) error

// errCaseProblem stops a streaming decode at the first structural problem.
var errCaseProblem = errors.New("a structural problem")

// A caseSource calls yield with each case item in order, stopping at the
// first error yield returns or at its own.
type caseSource func(yield func(item caseItem) error) error

func (d *nativeDecoder) prob(n *ynode, format string, args ...any) {
	d.p.probs = append(d.p.probs, probAt(n, format, args...))
}

func (d *nativeDecoder) top(body *ynode) error {
	r, s := d.r, d.p.suite
	if err := d.requireVersion(body); err != nil {
		return err
	}
	fs, err := r.fields(body, "suite", suiteFields, func(key string) string {
		if slices.Contains(caseFields, key) || slices.Contains(expectFields, key) {
			return fmt.Sprintf("%q belongs to a case, under \"cases:\"", key)
		}
		return ""
	})
	if err != nil {
		return err
	}
	var version *yfield
	for i := range fs {
		f := &fs[i]
		d.p.topLines[f.key] = f.line
		if f.key == "assay" {
			version = f
		}
	}
	if version == nil {
		line, col := nodePos(body)
		return Errorf(r.file, line, col, "missing \"assay: %d\": the native suite format needs it (is this a file of another format?)", NativeVersion)
	}
	v, err := r.integer("assay", version.val)
	if err != nil {
		return err
	}
	if v != NativeVersion {
		return r.errAt(version.val, "assay: unsupported format version %d (this assay reads version %d)", v, NativeVersion)
	}
	var casesField *yfield
	for i := range fs {
		f := fs[i]
		var err error
		switch f.key {
		case "name":
			s.Name, err = r.str(f)
		case "description":
			s.Description, err = r.text(f.key, f.val)
		case "analyzer":
			s.Analyzer, err = r.str(f)
		case "embeddings":
			s.Embeddings, err = d.endpoint(f)
		case "rerank":
			s.Rerank, err = d.endpoint(f)
		case "corpus":
			err = d.corpusField(f)
		case "defaults":
			err = d.defaults(f)
		case "metrics":
			err = d.metrics(f)
		case "gain":
			err = d.gain(f)
		case "margins":
			err = d.margins(f)
		case "prices":
			s.Prices, err = d.prices(f)
		case "recall_over":
			err = d.recallOver(f)
		case "cluster":
			err = d.cluster(f)
		case "refusal_markers":
			s.RefusalMarkers, _, err = r.strList(f)
			if name, ok := nodeScalar(f.val); ok && err == nil {
				if set, known := assay.RefusalMarkerSet(name); known { // refusal_markers: de
					s.RefusalMarkers = set
				}
			}
			if err == nil && s.RefusalMarkers != nil && len(s.RefusalMarkers) == 0 {
				d.prob(f.val, "refusal_markers: empty list; leave the field out to use the defaults")
			}
		case "tools":
			s.Tools, _, err = r.strList(f)
		case "gates":
			err = d.gates(f)
		case "judge":
			s.Judge, err = d.judgeDef(f)
		case "nugget_no_vital":
			err = d.nuggetNoVital(f)
		case "judgments_file":
			var v string
			if v, err = d.r.str(f); err == nil {
				if strings.TrimSpace(v) == "" {
					d.prob(f.val, "judgments_file: empty path; leave the field out, or name a .jsonl file")
				} else {
					d.p.judgmentsFile, d.p.judgmentsLine = v, f.line
				}
			}
		case "cases":
			casesField = &fs[i]
		}
		if err != nil {
			return err
		}
	}
	if casesField != nil && !d.jsonl {
		if name := casesField.val; name.Kind == yamltree.String && d.pieces == nil && isJSONLName(name.Text) {
			d.p.casesFile, d.p.casesLine, d.p.casesCol = name.Text, casesField.line, casesField.col
			return nil
		}
	}
	if d.jsonl && casesField != nil {
		return r.errAt(casesField.keyNode, "cases: a JSONL suite has no \"cases\" field: its cases are the lines after this header")
	}
	if d.pieces != nil && (casesField != nil || d.jsonl) {
		if d.onHeader != nil {
			if err := d.onHeader(d.p); err != nil {
				return err
			}
		}
		return d.caseItems(d.pieces, d.nPieces)
	}
	if casesField == nil || nodeIsNull(casesField.val) {
		line, col := nodePos(body)
		if casesField != nil {
			line, col = casesField.line, casesField.col
		}
		d.p.probs = append(d.p.probs, problem{line: line, col: col, msg: "the suite has no cases"})
		return nil
	}
	return d.cases(*casesField)
}

// requireVersion fails early, before unknown fields are reported, when the
// mapping has no "assay" key: such a file is most likely not a native suite
// at all, and saying so helps more than naming its first unknown field. A
// key that looks like a misspelling of "assay" is reported as one.
func (d *nativeDecoder) requireVersion(body *ynode) error {
	var keys []*ynode
	if body.Kind == yamltree.Map {
		keys = body.Keys
	}
	for _, key := range keys {
		kn, err := d.r.resolve(key)
		if err != nil {
			return err
		}
		if k, ok := nodeScalar(kn); ok && k == "assay" {
			return nil
		}
	}
	for _, key := range keys {
		kn, _ := d.r.resolve(key)
		if k, ok := nodeScalar(kn); ok && diag.Nearest(k, []string{"assay"}) == "assay" {
			return d.r.errAt(key, "unknown field %q (did you mean \"assay\"?)", k)
		}
	}
	line, col := nodePos(body)
	return Errorf(d.r.file, line, col, "missing \"assay: %d\": the native suite format needs it (is this a file of another format?)", NativeVersion)
}

// corpusField records the corpus path (loaded later) or reads an inline list.
func (d *nativeDecoder) corpusField(f yfield) error {
	r, s := d.r, d.p.suite
	if nodeIsNull(f.val) {
		return nil
	}
	if p, ok := nodeScalar(f.val); ok {
		if strings.TrimSpace(p) == "" {
			return r.errAt(f.val, "corpus: empty path")
		}
		s.CorpusSource = p // resolved against the suite dir by loadCorpus
		d.p.topLines["corpus.value"], d.p.topLines["corpus.value:col"] = nodePos(f.val)
		return nil
	}
	seq := f.val
	if seq.Kind != yamltree.Seq {
		return r.errAt(f.val, "corpus: want a path or a list of documents, got %s", nodeDesc(f.val))
	}
	s.CorpusSource = "inline"
	s.Corpus = []assay.Document{}
	seen := map[string]int{}
	for _, item := range seq.Items {
		item, err := r.resolve(item)
		if err != nil {
			return err
		}
		dfs, err := r.fields(item, "corpus document", docFields, nil)
		if err != nil {
			return err
		}
		var doc assay.Document
		hasID, hasBody := false, false
		for _, df := range dfs {
			switch df.key {
			case "id":
				doc.ID, err = r.str(df)
				hasID = doc.ID != ""
			case "title":
				doc.Title, err = r.text(df.key, df.val)
				hasBody = hasBody || !nodeIsNull(df.val)
			case "text":
				doc.Text, err = r.text(df.key, df.val)
				hasBody = hasBody || !nodeIsNull(df.val)
			case "path":
				doc.Path, err = r.str(df)
			case "lang":
				doc.Lang, err = r.str(df)
			case "metadata":
				doc.Meta, err = r.strMap(df)
			}
			if err != nil {
				return err
			}
		}
		switch {
		case !hasID:
			d.prob(item, "corpus document has no \"id\"")
			continue
		case !hasBody:
			d.prob(item, "corpus document %q has neither \"title\" nor \"text\"", doc.ID)
		}
		line, _ := nodePos(item)
		if first, dup := seen[doc.ID]; dup {
			d.prob(item, "duplicate document id %q (first at line %d)", doc.ID, first)
			continue
		}
		seen[doc.ID] = line
		s.Corpus = append(s.Corpus, doc)
	}
	corpus.Sort(s.Corpus)
	return nil
}

func (d *nativeDecoder) defaults(f yfield) error {
	r, s := d.r, d.p.suite
	if nodeIsNull(f.val) {
		return nil
	}
	fs, err := r.fields(f.val, "defaults", defaultsFields, nil)
	if err != nil {
		return err
	}
	for _, df := range fs {
		switch df.key {
		case "k":
			k, err := r.integer("k", df.val)
			if err != nil {
				return err
			}
			if k < 1 {
				d.prob(df.val, "k: must be at least 1, got %d", k)
			}
			s.Defaults.K = k
		case "case_sensitive":
			if s.Defaults.CaseSensitive, err = r.boolean(df.key, df.val); err != nil {
				return err
			}
		case "judge":
			if s.Defaults.Judge, err = d.judgeBounds(yfield{key: "defaults.judge", keyNode: df.keyNode, val: df.val}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *nativeDecoder) metrics(f yfield) error {
	names, nodes, err := d.r.strList(f)
	if err != nil {
		return err
	}
	if names != nil && len(names) == 0 {
		d.prob(f.val, "metrics: empty list; leave the field out to use the default set")
	}
	seen := map[string]bool{}
	for i, name := range names {
		sp, err := metric.Parse(name)
		if err != nil {
			d.prob(nodes[i], "metrics: %v", err)
			continue
		}
		if !seen[sp.Name] {
			seen[sp.Name] = true
			d.p.suite.Metrics = append(d.p.suite.Metrics, sp.Name)
		}
	}
	if d.p.suite.Metrics == nil && len(names) > 0 {
		d.p.suite.Metrics = []string{}
	}
	return nil
}

func (d *nativeDecoder) gain(f yfield) error {
	g, err := d.r.str(f)
	if err != nil {
		return err
	}
	switch assay.Gain(strings.ToLower(g)) {
	case "":
	case assay.GainLinear:
		d.p.suite.Gain = assay.GainLinear
	case assay.GainExponential:
		d.p.suite.Gain = assay.GainExponential
	default:
		d.prob(f.val, "gain: unknown gain %q (want %q or %q)", g, assay.GainLinear, assay.GainExponential)
	}
	return nil
}

// cluster reads cluster: the tag whose value groups dependent cases.
func (d *nativeDecoder) cluster(f yfield) error {
	v, err := d.r.str(f)
	if err != nil {
		return err
	}
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v, " \t=[]") {
		d.prob(f.val, "cluster: want a tag name, e.g. cluster: doc (the cases' tags.doc groups them)")
		return nil
	}
	d.p.suite.Cluster = v
	return nil
}

// margins reads margins: a mapping of pass_rate or a metric name to an
// equivalence margin >= 0, kept under the metric's canonical name.
func (d *nativeDecoder) margins(f yfield) error {
	r := d.r
	if nodeIsNull(f.val) {
		return nil
	}
	fs, err := r.fields(f.val, "margins", nil, nil)
	if err != nil {
		return err
	}
	out := map[string]float64{}
	for _, mf := range fs {
		name := strings.ToLower(mf.key)
		if name != "pass_rate" && !assay.IsNuggetMetric(name) {
			sp, err := metric.Parse(mf.key)
			if err != nil {
				d.prob(mf.keyNode, "margins: %v", err)
				continue
			}
			name = sp.Name
		}
		v, err := r.number("margins."+mf.key, mf.val)
		if err != nil {
			return err
		}
		if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			d.prob(mf.val, "margins.%s: a margin is a number >= 0 in the measure's units, got %v", mf.key, v)
			continue
		}
		out[name] = v
	}
	d.p.suite.Margins = out
	return nil
}

// priceFields are the fields of one model's price.
var priceFields = []string{"input", "output", "cached_input"}

// prices reads prices: per model (or "*" for any other), its input,
// output and cached_input price in US dollars per million tokens
// (docs/cost.md). input and output are required.
func (d *nativeDecoder) prices(f yfield) (assay.PriceTable, error) {
	r := d.r
	if nodeIsNull(f.val) {
		return nil, nil
	}
	models, err := r.fields(f.val, "prices", nil, nil)
	if err != nil {
		return nil, err
	}
	out := assay.PriceTable{}
	for _, mf := range models {
		fs, err := r.fields(mf.val, "prices."+mf.key, priceFields, nil)
		if err != nil {
			return nil, err
		}
		var p assay.Price
		seen := map[string]bool{}
		for _, pf := range fs {
			v, err := r.number("prices."+mf.key+"."+pf.key, pf.val)
			if err != nil {
				return nil, err
			}
			if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				d.prob(pf.val, "prices.%s.%s: a price is a number >= 0 (US dollars per million tokens), got %v", mf.key, pf.key, v)
				continue
			}
			seen[pf.key] = true
			switch pf.key {
			case "input":
				p.Input = v
			case "output":
				p.Output = v
			case "cached_input":
				p.CachedInput = &v
			}
		}
		for _, k := range []string{"input", "output"} {
			if !seen[k] {
				d.prob(mf.keyNode, "prices.%s: missing %s (US dollars per million tokens; 0 when free)", mf.key, k)
			}
		}
		out[mf.key] = p
	}
	return out, nil
}

// recallOver reads recall_over: judged (the default) or relevant.
func (d *nativeDecoder) recallOver(f yfield) error {
	v, err := d.r.str(f)
	if err != nil {
		return err
	}
	switch strings.ToLower(v) {
	case "", assay.RecallOverJudged:
		d.p.suite.RecallOver = ""
	case assay.RecallOverRelevant:
		d.p.suite.RecallOver = assay.RecallOverRelevant
	default:
		d.prob(f.val, "recall_over: unknown value %q (want %q or %q)", v, assay.RecallOverJudged, assay.RecallOverRelevant)
	}
	return nil
}

// gates reads a list of expressions, or one string with one per line.
func (d *nativeDecoder) gates(f yfield) error {
	r, s := d.r, d.p.suite
	if nodeIsNull(f.val) {
		return nil
	}
	add := func(expr string, line int) {
		if expr = strings.TrimSpace(expr); expr != "" && !strings.HasPrefix(expr, "#") {
			s.Gates = append(s.Gates, assay.Gate{Expr: expr, Source: fmt.Sprintf("%s:%d", r.file, line)})
		}
	}
	switch v := f.val; v.Kind {
	case yamltree.Seq:
		for _, item := range v.Items {
			item, err := r.resolve(item)
			if err != nil {
				return err
			}
			txt, ok := nodeScalar(item)
			if !ok {
				return r.errAt(item, "gates: want a gate expression such as \"pass_rate >= 0.8\", got %s", nodeDesc(item))
			}
			line, _ := nodePos(item)
			add(txt, line)
		}
	case yamltree.Block:
		line, _ := nodePos(v)
		for i, l := range strings.Split(v.Text, "\n") {
			add(l, line+1+i)
		}
	case yamltree.String:
		line, _ := nodePos(v)
		add(v.Text, line)
	default:
		return r.errAt(f.val, "gates: want a list of gate expressions, got %s", nodeDesc(f.val))
	}
	return nil
}

func (d *nativeDecoder) cases(f yfield) error {
	r := d.r
	seq := f.val
	if seq.Kind != yamltree.Seq {
		return r.errAt(f.val, "cases: want a list of cases, got %s", nodeDesc(f.val))
	}
	if len(seq.Items) == 0 {
		d.prob(f.val, "the suite has no cases")
	}
	return d.caseItems(func(yield func(caseItem) error) error {
		for _, item := range seq.Items {
			if err := yield(caseItem{node: item}); err != nil {
				return err
			}
		}
		return nil
	}, len(seq.Items))
}

// caseItems reads the n case items src yields, in order.
func (d *nativeDecoder) caseItems(src caseSource, n int) error {
	if d.onCase != nil {
		i, warns := 0, len(d.p.warns)
		return src(func(item caseItem) error {
			probs := len(d.p.probs)
			c, lines, err := d.itemCase(item, i)
			if err != nil {
				return err
			}
			d.stampFile(probs, warns)
			i++
			caseWarns := d.p.warns[warns:]
			d.p.warns = d.p.warns[:warns]
			if len(d.p.probs) > 0 {
				return errCaseProblem
			}
			return d.onCase(c, lines, caseWarns)
		})
	}
	if n > 0 {
		d.p.suite.Cases = make([]assay.Case, 0, n)
		d.p.caseLines = make([]fieldLines, 0, n)
	}
	ids := make(map[string]int, n)
	i := 0
	return src(func(item caseItem) error {
		probs, warns := len(d.p.probs), len(d.p.warns)
		defer d.stampFile(probs, warns)
		c, lines, err := d.itemCase(item, i)
		if err != nil {
			return err
		}
		i++
		if c.ID != "" {
			if first, dup := ids[c.ID]; dup {
				line, col := lines.at("id"), lines.at("id:col")
				d.p.probs = append(d.p.probs, problem{line: line, col: col, msg: fmt.Sprintf("duplicate case id %q (first at line %d)", c.ID, first)})
			} else {
				ids[c.ID] = lines.at("id")
			}
		}
		d.p.suite.Cases = append(d.p.suite.Cases, c)
		d.p.caseLines = append(d.p.caseLines, lines)
		return nil
	})
}

// stampFile names d.caseFile in the problems and warnings from index
// probs and warns on.
func (d *nativeDecoder) stampFile(probs, warns int) {
	for i := probs; i < len(d.p.probs); i++ {
		if d.p.probs[i].file == "" {
			d.p.probs[i].file = d.caseFile
		}
	}
	for i := warns; i < len(d.p.warns); i++ {
		if d.p.warns[i].file == "" {
			d.p.warns[i].file = d.caseFile
		}
	}
}

func (d *nativeDecoder) oneCase(n *ynode, index int) (assay.Case, fieldLines, error) {
	r := d.r
	var c assay.Case
	var lines fieldLines
	fs, err := r.fields(n, "case", caseFields, func(key string) string {
		if slices.Contains(expectFields, key) {
			return fmt.Sprintf("%q is an expectation: put it under \"expect:\"", key)
		}
		if key == "assay" && d.caseFile != "" {
			return "every line of a cases file is a case: the suite's fields belong in the suite file"
		}
		return ""
	})
	if err != nil {
		return c, nil, err
	}
	line, col := nodePos(n)
	lines = make(fieldLines, 0, len(fs)+3)
	lines.set("", line)
	c.Source = fmt.Sprintf("%s:%d", r.file, line)
	var relevant []string
	var relevantNodes []*ynode
	hasQuery := false
	for _, f := range fs {
		lines.set(f.key, f.line)
		var err error
		switch f.key {
		case "id":
			c.ID, err = r.str(f)
			vl, vc := nodePos(f.val)
			lines.set("id", vl)
			lines.set("id:col", vc)
		case "query":
			c.Query, err = r.text(f.key, f.val)
			hasQuery = !nodeIsNull(f.val)
		case "tags":
			c.Tags, err = r.strMap(f)
		case "guards":
			c.Guards, err = r.text(f.key, f.val)
		case "k":
			if nodeIsNull(f.val) {
				break
			}
			c.K, err = r.integer("k", f.val)
			if err == nil && c.K < 1 {
				d.prob(f.val, "k: must be at least 1, got %d", c.K)
			}
		case "relevant":
			relevant, relevantNodes, err = r.strList(f)
		case "judgments":
			err = d.judgments(f, &c)
		case "expect":
			err = d.expect(f, &c, &lines)
		case "surface":
			c.Surface, err = r.str(f)
		case "vars":
			c.Vars, err = r.strMap(f)
		case "review":
			c.Review, err = r.str(f)
			if err == nil && c.Review != assay.ReviewPending {
				d.prob(f.val, "review: want %q (or no review field: the case is active), got %q", assay.ReviewPending, c.Review)
			}
		case "provenance":
			c.Provenance, err = r.strMap(f)
		case "turns":
			err = d.turns(f, &c)
		}
		if err != nil {
			return c, nil, err
		}
	}
	// With recall_over: relevant the list is the binary set and judgments:
	// the grades (GNO's rule): a listed document gets grade 1 only when the
	// case has no judgments at all.
	mergeRelevant(&c, relevant, d.p.suite.RecallOver == assay.RecallOverRelevant, func(i int) bool {
		d.prob(relevantNodes[i], "relevant: empty document id")
		return true
	}, func(i, g int) bool {
		d.p.warns = append(d.p.warns, probAt(relevantNodes[i],
			"case %q: %q is listed in relevant but judged %d in judgments (the judgment wins)", c.ID, relevant[i], g))
		return true
	})
	switch {
	case c.ID == "":
		if _, present := lines.get("id"); present && lines.at("id:col") > 0 {
			d.p.probs = append(d.p.probs, problem{line: lines.at("id"), col: lines.at("id:col"), msg: fmt.Sprintf("case %d: empty \"id\"", index+1)})
		} else {
			d.p.probs = append(d.p.probs, problem{line: line, col: col, msg: fmt.Sprintf("case %d has no \"id\"", index+1)})
		}
	case hasQuery && c.IsConversation():
		d.p.probs = append(d.p.probs, problem{line: line, col: col, msg: fmt.Sprintf("case %q has both \"query\" and \"turns\": a conversation's messages are its turns", c.ID)})
	case c.IsConversation() && (len(relevant) > 0 || len(c.Judgments) > 0):
		d.p.probs = append(d.p.probs, problem{line: line, col: col, msg: fmt.Sprintf("case %q: a conversation's judgments go in its turns (each turn's relevant: or judgments:)", c.ID)})
	case !hasQuery && !c.IsConversation() && lines.at("turns") == 0:
		d.p.probs = append(d.p.probs, problem{line: line, col: col, msg: fmt.Sprintf("case %q has no \"query\"", c.ID)})
	case c.Expect.MaxTurns > 0 && !c.IsConversation():
		d.p.probs = append(d.p.probs, problem{line: lines.at("expect.max_turns"), col: col, msg: fmt.Sprintf("case %q: max_turns needs a conversation (turns:)", c.ID)})
	}
	return c, lines, nil
}

func (d *nativeDecoder) judgments(f yfield, c *assay.Case) error {
	r := d.r
	if nodeIsNull(f.val) {
		return nil
	}
	if f.val.Kind == yamltree.Seq {
		return r.errAt(f.val, "judgments: want a mapping of document id to grade, got a sequence (a plain list of relevant documents goes in \"relevant:\")")
	}
	fs, err := r.fields(f.val, "judgments", nil, nil)
	if err != nil {
		return err
	}
	if c.Judgments == nil {
		c.Judgments = make(map[string]int, len(fs))
	}
	for _, j := range fs {
		if nodeIsNull(j.val) {
			return r.errAt(j.keyNode, "judgments: %q has no grade (want an integer such as 1)", j.key)
		}
		g, err := r.integer(fmt.Sprintf("judgments: grade of %q", j.key), j.val)
		if err != nil {
			return err
		}
		c.Judgments[j.key] = g
	}
	return nil
}

func (d *nativeDecoder) expect(f yfield, c *assay.Case, lines *fieldLines) error {
	r := d.r
	if nodeIsNull(f.val) {
		return nil
	}
	fs, err := r.fields(f.val, "expect", expectFields, func(key string) string {
		if slices.Contains(caseFields, key) {
			return fmt.Sprintf("%q belongs to the case, not under \"expect:\"", key)
		}
		return ""
	})
	if err != nil {
		return err
	}
	e := &c.Expect
	for _, f := range fs {
		lines.set("expect."+f.key, f.line)
		var err error
		optBool := func() (*bool, error) {
			if nodeIsNull(f.val) {
				return nil, nil
			}
			b, err := r.boolean(f.key, f.val)
			return &b, err
		}
		plainBool := func() (bool, error) {
			if nodeIsNull(f.val) {
				return false, nil
			}
			return r.boolean(f.key, f.val)
		}
		// list reads a list of strings; an empty one among them is a
		// problem (see emptyItemProblem), and so is an empty list: it
		// checks nothing, and the case would be left ungraded (or graded
		// on its other expectations) without a word.
		list := func() ([]string, error) {
			vals, nodes, err := r.strList(f)
			if err == nil && vals != nil && len(vals) == 0 {
				d.prob(f.val, "%s: an empty list checks nothing: give at least one value, or remove %s", f.key, f.key)
			}
			if err == nil {
				for i, v := range vals {
					if v == "" {
						d.prob(nodes[i], "%s", emptyItemProblem(f.key, i, len(vals)))
					}
				}
			}
			return vals, err
		}
		switch f.key {
		case "answer_includes":
			e.AnswerIncludes, err = list()
		case "answer_includes_any":
			e.AnswerIncludesAny, err = list()
		case "answer_excludes":
			e.AnswerExcludes, err = list()
		case "answer_matches":
			if e.AnswerMatches, err = r.str(f); err == nil && e.AnswerMatches != "" {
				if _, rerr := regexp.Compile(e.AnswerMatches); rerr != nil {
					d.prob(f.val, "answer_matches: invalid regexp: %s", strings.TrimPrefix(rerr.Error(), "error parsing regexp: "))
				}
			}
		case "case_sensitive":
			e.CaseSensitive, err = optBool()
		case "retrieves":
			e.Retrieves, err = list()
		case "cites":
			e.Cites, err = list()
		case "cites_any":
			e.CitesAny, err = list()
		case "cited":
			e.Cited, err = list()
		case "cited_any":
			e.CitedAny, err = list()
		case "cites_only_surfaced":
			e.CitesOnlySurfaced, err = plainBool()
		case "no_citations":
			e.NoCitations, err = plainBool()
		case "refusal":
			e.Refusal, err = optBool()
		case "calls_tool":
			e.CallsTool, err = list()
		case "calls_any_tool":
			e.CallsAnyTool, err = plainBool()
		case "never_calls":
			e.NeverCalls, err = list()
		case "stops_at_approval":
			e.StopsAtApproval, err = plainBool()
		case "outcome":
			e.Outcome, err = r.str(f)
		case "json_schema":
			if e.JSONSchema, err = r.str(f); err == nil && e.JSONSchema != "" {
				lines.set("expect.json_schema:col", nodeCol(f.val))
				line, _ := nodePos(f.val)
				lines.set("expect.json_schema:line", line)
			}
		case "max_latency_ms":
			if nodeIsNull(f.val) {
				break
			}
			var v float64
			if v, err = r.number(f.key, f.val); err == nil {
				if v <= 0 {
					d.prob(f.val, "max_latency_ms: must be greater than 0, got %v", v)
				}
				e.MaxLatencyMs = &v
			}
		case "judge":
			e.Judge, err = d.judgeBounds(yfield{key: "expect.judge", keyNode: f.keyNode, val: f.val})
		case "nuggets":
			e.Nuggets, err = d.nuggets(f)
		case "tools":
			e.Tools, err = d.trajectory(f)
		case "max_turns":
			if nodeIsNull(f.val) {
				break
			}
			if e.MaxTurns, err = r.integer(f.key, f.val); err == nil && e.MaxTurns < 1 {
				d.prob(f.val, "max_turns: must be at least 1, got %d", e.MaxTurns)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func nodeCol(n *ynode) int {
	_, c := nodePos(n)
	return c
}

// resolvePath joins a suite-relative path to dir.
func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

// mergeRelevant merges a case's relevant list into its judgments: a listed
// document gets grade 1 unless judged; with recall_over: relevant (apart)
// the list is also kept as the binary set, and a listed document gets
// grade 1 only when the case has no judgments at all. empty(i) is called
// for an empty id and conflict(i, g) for an id judged g <= 0 (the judgment
// wins); either returning false stops the merge, and mergeRelevant
// returns false.
func mergeRelevant(c *assay.Case, relevant []string, apart bool, empty func(i int) bool, conflict func(i, g int) bool) bool {
	graded := len(c.Judgments) > 0
	for i, id := range relevant {
		if id == "" {
			if !empty(i) {
				return false
			}
			continue
		}
		if c.Judgments == nil {
			c.Judgments = map[string]int{}
		}
		if apart {
			c.Relevant = append(c.Relevant, id)
		}
		if g, ok := c.Judgments[id]; !ok {
			if apart && graded {
				continue
			}
			c.Judgments[id] = 1
		} else if g <= 0 && !conflict(i, g) {
			return false
		}
	}
	return true
}

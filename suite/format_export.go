package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/assay-eval/assay/internal/atomicfile"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
	"github.com/goccy/go-yaml"
)

// ExportOptions control WriteNative.
type ExportOptions struct {
	// Dir is the directory the written suite will live in: corpus paths are
	// written relative to it. Empty means the current directory.
	Dir string
	// CorpusFile, when set, is the path (relative to Dir) of the JSONL file
	// the caller writes the corpus to with WriteCorpusJSONL, used when the
	// corpus has no file of its own to reference (Knowlex's inline corpus,
	// Cranfield's SMART file). When empty such a corpus is written inline.
	CorpusFile string
	// Comment is written as "# " lines at the top of the file.
	Comment string
}

type exportDoc struct {
	ID    string `yaml:"id"`
	Title string `yaml:"title,omitempty"`
	Text  string `yaml:"text"`
}

type exportDefaults struct {
	K             int  `yaml:"k,omitempty"`
	CaseSensitive bool `yaml:"case_sensitive,omitempty"`
}

type exportExpect struct {
	AnswerIncludes    []string          `yaml:"answer_includes,omitempty,flow"`
	AnswerIncludesAny []string          `yaml:"answer_includes_any,omitempty,flow"`
	AnswerExcludes    []string          `yaml:"answer_excludes,omitempty,flow"`
	AnswerMatches     string            `yaml:"answer_matches,omitempty"`
	CaseSensitive     *bool             `yaml:"case_sensitive,omitempty"`
	Retrieves         []string          `yaml:"retrieves,omitempty,flow"`
	Cites             []string          `yaml:"cites,omitempty,flow"`
	CitesAny          []string          `yaml:"cites_any,omitempty,flow"`
	Cited             []string          `yaml:"cited,omitempty,flow"`
	CitedAny          []string          `yaml:"cited_any,omitempty,flow"`
	CitesOnlySurfaced bool              `yaml:"cites_only_surfaced,omitempty"`
	NoCitations       bool              `yaml:"no_citations,omitempty"`
	Refusal           *bool             `yaml:"refusal,omitempty"`
	CallsTool         []string          `yaml:"calls_tool,omitempty,flow"`
	CallsAnyTool      bool              `yaml:"calls_any_tool,omitempty"`
	NeverCalls        []string          `yaml:"never_calls,omitempty,flow"`
	StopsAtApproval   bool              `yaml:"stops_at_approval,omitempty"`
	Outcome           string            `yaml:"outcome,omitempty"`
	JSONSchema        string            `yaml:"json_schema,omitempty"`
	MaxLatencyMs      *float64          `yaml:"max_latency_ms,omitempty"`
	Nuggets           []any             `yaml:"nuggets,omitempty"`
	Tools             *exportTrajectory `yaml:"tools,omitempty"`
	MaxTurns          int               `yaml:"max_turns,omitempty"`
}

type exportTrajectory struct {
	Mode  string       `yaml:"mode,omitempty"`
	Args  string       `yaml:"args,omitempty"`
	Calls []exportCall `yaml:"calls"`
}

type exportCall struct {
	Name      string            `yaml:"name"`
	Args      map[string]any    `yaml:"args,omitempty,flow"`
	ArgsMatch string            `yaml:"args_match,omitempty"`
	ArgsRegex map[string]string `yaml:"args_regex,omitempty,flow"`
}

type exportTurn struct {
	Query     string        `yaml:"query"`
	Judgments yaml.MapSlice `yaml:"judgments,omitempty,flow"`
	Expect    *exportExpect `yaml:"expect,omitempty"`
}

type exportCase struct {
	ID         string            `yaml:"id"`
	Query      *string           `yaml:"query,omitempty"` // nil for a conversation
	Tags       yaml.MapSlice     `yaml:"tags,omitempty,flow"`
	Guards     string            `yaml:"guards,omitempty"`
	K          int               `yaml:"k,omitempty"`
	Relevant   []string          `yaml:"relevant,omitempty,flow"`
	Judgments  yaml.MapSlice     `yaml:"judgments,omitempty,flow"`
	Expect     *exportExpect     `yaml:"expect,omitempty"`
	Surface    string            `yaml:"surface,omitempty"`
	Vars       map[string]string `yaml:"vars,omitempty"`
	Turns      []exportTurn      `yaml:"turns,omitempty"`
	Review     string            `yaml:"review,omitempty"`
	Provenance yaml.MapSlice     `yaml:"provenance,omitempty,flow"`
}

type exportFile struct {
	Assay          int                `yaml:"assay"`
	Name           string             `yaml:"name,omitempty"`
	Description    string             `yaml:"description,omitempty"`
	Corpus         any                `yaml:"corpus,omitempty"`
	Defaults       *exportDefaults    `yaml:"defaults,omitempty"`
	Metrics        []string           `yaml:"metrics,omitempty,flow"`
	Gain           string             `yaml:"gain,omitempty"`
	RecallOver     string             `yaml:"recall_over,omitempty"`
	Margins        map[string]float64 `yaml:"margins,omitempty"`
	RefusalMarkers []string           `yaml:"refusal_markers,omitempty,flow"`
	Tools          []string           `yaml:"tools,omitempty,flow"`
	Gates          []string           `yaml:"gates,omitempty"`
	NuggetNoVital  string             `yaml:"nugget_no_vital,omitempty"`
	Cases          []exportCase       `yaml:"cases"`
}

// corpusRef returns the path a native suite can name for s's corpus: a
// directory or a JSONL(.gz) file. ok is false when the corpus must be
// written out (inline, or a file format the native loader does not read).
func corpusRef(s *assay.Suite) (string, bool) {
	src := s.CorpusSource
	if src == "" || src == "inline" {
		return "", false
	}
	if dirExists(src) || strings.HasSuffix(src, ".jsonl") || strings.HasSuffix(src, ".jsonl.gz") {
		return src, true
	}
	return "", false
}

// NeedsCorpusFile reports whether s has a corpus that WriteNative cannot
// reference by path, so that it is written inline unless the caller writes
// it to ExportOptions.CorpusFile.
func NeedsCorpusFile(s *assay.Suite) bool {
	_, ok := corpusRef(s)
	return len(s.Corpus) > 0 && !ok
}

// relSlash makes target relative to dir when it can (slash-separated),
// otherwise returns it absolute.
func relSlash(dir, target string) string {
	if dir == "" {
		dir = "."
	}
	ad, err1 := filepath.Abs(dir)
	at, err2 := filepath.Abs(target)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(target)
	}
	r, err := filepath.Rel(ad, at)
	if err != nil {
		return filepath.ToSlash(at)
	}
	// A path that climbs to the root shares nothing with dir: absolute
	// is clearer than "../../../x".
	up := 0
	for _, seg := range strings.Split(filepath.ToSlash(r), "/") {
		if seg != ".." {
			break
		}
		up++
	}
	if up > 0 && up >= strings.Count(filepath.ToSlash(filepath.Clean(ad)), "/") {
		return filepath.ToSlash(at)
	}
	return filepath.ToSlash(r)
}

// WriteNative writes s as a native suite (`assay: 1`) that loads back to an
// equal suite: the same cases, judgments, expectations, gates, defaults,
// metrics and corpus. Judgments that are all grade 1 are written as
// `relevant:`, others as `judgments:`. Settings equal to the native defaults
// are left out.
func WriteNative(w io.Writer, s *assay.Suite, o ExportOptions) error {
	f := exportOf(s, o)
	out, err := yaml.MarshalWithOptions(f, yaml.Indent(2), yaml.IndentSequence(true), yaml.UseLiteralStyleIfMultiline(true))
	if err != nil {
		return fmt.Errorf("writing native suite: %v", err)
	}
	var buf bytes.Buffer
	for _, l := range strings.Split(strings.TrimRight(o.Comment, "\n"), "\n") {
		if o.Comment != "" {
			fmt.Fprintf(&buf, "# %s\n", l)
		}
	}
	buf.Write(out)
	_, err = w.Write(buf.Bytes())
	return err
}

// WriteNativeJSONL writes s as a JSONL suite (package doc, "JSONL"): the
// header object of WriteNative's suite on the first line, then each case
// as one JSON object a line. It loads back to an equal suite. o.Comment is
// not written (JSON has no comments).
func WriteNativeJSONL(w io.Writer, s *assay.Suite, o ExportOptions) error {
	f := exportOf(s, o)
	cases := f.Cases
	f.Cases = nil
	bw := bufio.NewWriter(w)
	whole, err := yaml.MarshalWithOptions(f, yaml.JSON())
	if err != nil {
		return fmt.Errorf("writing JSONL suite: %v", err)
	}
	var fields yaml.MapSlice
	if err := yaml.UnmarshalWithOptions(whole, &fields, yaml.UseOrderedMap()); err != nil {
		return fmt.Errorf("writing JSONL suite: %v", err)
	}
	fields = slices.DeleteFunc(fields, func(it yaml.MapItem) bool { return it.Key == "cases" })
	head, err := jsonLine(fields)
	if err != nil {
		return err
	}
	bw.Write(head)
	for _, c := range cases {
		b, err := jsonLine(c)
		if err != nil {
			return err
		}
		bw.Write(b)
	}
	return bw.Flush()
}

// jsonLine is v as one line of JSON, ending in a newline.
func jsonLine(v any) ([]byte, error) {
	b, err := yaml.MarshalWithOptions(v, yaml.JSON(), yaml.Flow(true))
	if err != nil {
		return nil, fmt.Errorf("writing JSONL suite: %v", err)
	}
	b = bytes.TrimSpace(b)
	if !json.Valid(b) || bytes.ContainsAny(b, "\n\r") {
		// goccy/go-yaml escaped a string as YAML, not JSON: encode it again
		// with encoding/json (which orders mapping keys).
		var x any
		if err := yaml.Unmarshal(b, &x); err != nil {
			return nil, fmt.Errorf("writing JSONL suite: %v", err)
		}
		if b, err = json.Marshal(x); err != nil {
			return nil, fmt.Errorf("writing JSONL suite: %v", err)
		}
	}
	return append(b, '\n'), nil
}

// exportOf is the exported form of s (see WriteNative).
func exportOf(s *assay.Suite, o ExportOptions) exportFile {
	f := exportFile{Assay: 1, Name: s.Name, Description: s.Description}
	if ref, ok := corpusRef(s); ok {
		p := relSlash(o.Dir, ref)
		if dirExists(ref) && !strings.HasSuffix(p, "/") {
			p += "/"
		}
		f.Corpus = p
	} else if len(s.Corpus) > 0 {
		if o.CorpusFile != "" {
			f.Corpus = filepath.ToSlash(o.CorpusFile)
		} else {
			docs := make([]exportDoc, len(s.Corpus))
			for i, d := range s.Corpus {
				docs[i] = exportDoc{ID: d.ID, Title: d.Title, Text: d.Text}
			}
			f.Corpus = docs
		}
	}
	if (s.Defaults.K != 0 && s.Defaults.K != assay.DefaultK) || s.Defaults.CaseSensitive {
		f.Defaults = &exportDefaults{CaseSensitive: s.Defaults.CaseSensitive}
		if s.Defaults.K != assay.DefaultK {
			f.Defaults.K = s.Defaults.K
		}
	}
	if len(s.Metrics) > 0 && !slices.Equal(s.Metrics, assay.DefaultMetrics) {
		f.Metrics = s.Metrics
	}
	if s.Gain != "" && s.Gain != assay.GainLinear {
		f.Gain = string(s.Gain)
	}
	f.RecallOver = s.RecallOver
	f.Margins = s.Margins
	if len(s.RefusalMarkers) > 0 {
		f.RefusalMarkers = s.RefusalMarkers
	}
	f.Tools = s.Tools
	if s.NuggetNoVital != "" && s.NuggetNoVital != assay.NuggetNoVitalUndefined {
		f.NuggetNoVital = s.NuggetNoVital
	}
	for _, g := range s.Gates {
		f.Gates = append(f.Gates, g.Expr)
	}
	f.Cases = make([]exportCase, 0, len(s.Cases))
	for _, c := range s.Cases {
		nc := exportCase{ID: c.ID, Guards: c.Guards, K: c.K, Surface: c.Surface, Vars: c.Vars, Review: c.Review}
		for _, k := range keysSorted(c.Provenance) {
			nc.Provenance = append(nc.Provenance, yaml.MapItem{Key: k, Value: c.Provenance[k]})
		}
		if !c.IsConversation() {
			q := c.Query
			nc.Query = &q
		}
		for _, k := range keysSorted(c.Tags) {
			nc.Tags = append(nc.Tags, yaml.MapItem{Key: k, Value: c.Tags[k]})
		}
		allOne := len(c.Judgments) > 0 && len(c.Relevant) == 0
		nc.Relevant = c.Relevant
		for _, g := range c.Judgments {
			if g != 1 {
				allOne = false
			}
		}
		for _, id := range keysSorted(c.Judgments) {
			if allOne {
				nc.Relevant = append(nc.Relevant, id)
			} else if c.Judgments[id] != 1 || !slices.Contains(c.Relevant, id) || !judgedOnlyRelevant(c) { // relevant: gives grade 1
				nc.Judgments = append(nc.Judgments, yaml.MapItem{Key: id, Value: c.Judgments[id]})
			}
		}
		nc.Expect = exportExpectOf(c.Expect, o.Dir)
		for _, t := range c.Turns {
			nt := exportTurn{Query: t.Query, Expect: exportExpectOf(t.Expect, o.Dir)}
			for _, id := range keysSorted(t.Judgments) {
				nt.Judgments = append(nt.Judgments, yaml.MapItem{Key: id, Value: t.Judgments[id]})
			}
			nc.Turns = append(nc.Turns, nt)
		}
		f.Cases = append(f.Cases, nc)
	}
	return f
}

// exportExpectOf is the expect: mapping of e (nil when it states
// nothing), its json_schema relative to dir.
func exportExpectOf(e assay.Expect, dir string) *exportExpect {
	if e.Empty() && len(e.Nuggets) == 0 {
		if e.CaseSensitive != nil {
			return &exportExpect{CaseSensitive: e.CaseSensitive}
		}
		return nil
	}
	x := &exportExpect{
		AnswerIncludes: e.AnswerIncludes, AnswerIncludesAny: e.AnswerIncludesAny,
		AnswerExcludes: e.AnswerExcludes, AnswerMatches: e.AnswerMatches,
		CaseSensitive: e.CaseSensitive, Retrieves: e.Retrieves, Cites: e.Cites,
		CitesAny: e.CitesAny, Cited: e.Cited, CitedAny: e.CitedAny, CitesOnlySurfaced: e.CitesOnlySurfaced, NoCitations: e.NoCitations,
		Refusal: e.Refusal, CallsTool: e.CallsTool, CallsAnyTool: e.CallsAnyTool,
		NeverCalls: e.NeverCalls, StopsAtApproval: e.StopsAtApproval, Outcome: e.Outcome,
		MaxLatencyMs: e.MaxLatencyMs, Nuggets: exportNuggets(e.Nuggets), MaxTurns: e.MaxTurns,
	}
	if e.JSONSchemaPath != "" {
		x.JSONSchema = relSlash(dir, e.JSONSchemaPath)
	} else {
		x.JSONSchema = e.JSONSchema
	}
	if t := e.Tools; t != nil {
		x.Tools = &exportTrajectory{Mode: t.Mode, Args: t.Args, Calls: []exportCall{}}
		for _, c := range t.Calls {
			x.Tools.Calls = append(x.Tools.Calls, exportCall{Name: c.Name, Args: c.Args, ArgsMatch: c.ArgsMatch, ArgsRegex: c.ArgsRegex})
		}
	}
	return x
}

// WriteCorpusJSONL writes docs as JSONL, one {"id","title","text"} object
// a line, the shape corpus.Load reads.
func WriteCorpusJSONL(w io.Writer, docs []assay.Document) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, d := range docs {
		if err := enc.Encode(struct {
			ID    string `json:"id"`
			Title string `json:"title,omitempty"`
			Text  string `json:"text"`
		}{d.ID, d.Title, d.Text}); err != nil {
			return err
		}
	}
	return nil
}

// Import loads src as format (one of ImportFormats) and writes its native
// equivalent to out: a JSONL suite when out ends in .jsonl
// (WriteNativeJSONL), else YAML (WriteNative). A corpus that cannot be referenced by path is written
// beside out as "<out stem>.corpus.jsonl". It returns the loaded suite and
// the files written.
func Import(format, src, out string, o LoadOptions) (*assay.Suite, []string, error) {
	s, err := LoadFormat(format, src, o)
	if err != nil {
		return nil, nil, err
	}
	if sameFile(src, out) {
		return nil, nil, fmt.Errorf("%s: refusing to overwrite the source with its import", out)
	}
	inputs := importInputs(s)
	if slices.ContainsFunc(inputs, func(in string) bool { return sameFile(in, out) }) {
		return nil, nil, fmt.Errorf("%s: refusing to overwrite an input of the import", out)
	}
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", dir, unwrapPathError(err))
	}
	opts := ExportOptions{Dir: dir, Comment: fmt.Sprintf("imported by `assay import %s %s`", format, filepath.ToSlash(src))}
	var written []string
	if NeedsCorpusFile(s) {
		stem := strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
		opts.CorpusFile = stem + ".corpus.jsonl"
		cp := filepath.Join(dir, opts.CorpusFile)
		if sameFile(src, cp) || sameFile(s.CorpusSource, cp) {
			return nil, nil, fmt.Errorf("%s: refusing to overwrite the source with its import", cp)
		}
		if slices.ContainsFunc(inputs, func(in string) bool { return sameFile(in, cp) }) {
			return nil, nil, fmt.Errorf("%s: refusing to overwrite an input of the import", cp)
		}
		var buf bytes.Buffer
		if err := WriteCorpusJSONL(&buf, s.Corpus); err != nil {
			return nil, nil, err
		}
		if err := replaceWith(cp, buf.Bytes()); err != nil {
			return nil, nil, err
		}
		written = append(written, cp)
	}
	var buf bytes.Buffer
	write := WriteNative
	if isJSONLName(out) {
		write = WriteNativeJSONL
	}
	if err := write(&buf, s, opts); err != nil {
		return nil, nil, err
	}
	if err := replaceWith(out, buf.Bytes()); err != nil {
		return nil, nil, err
	}
	return s, append(written, out), nil
}

// importInputs are the files an import read besides SRC: the corpus files
// and the files its cases come from (queries, topics), each once.
func importInputs(s *assay.Suite) []string {
	var files []string
	if s.CorpusSource != "" && s.CorpusSource != "inline" {
		if fs, err := corpus.Files(s.CorpusSource); err == nil {
			files = append(files, fs...)
		}
	}
	seen := map[string]bool{}
	for _, c := range s.Cases {
		// Source is "file:line".
		f, line, ok := cutLast(c.Source, ":")
		if !ok || line == "" || strings.Trim(line, "0123456789") != "" || seen[f] {
			continue
		}
		seen[f] = true
		files = append(files, f)
	}
	return files
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// replaceWith writes data to path whole or not at all (atomicfile.Replace).
func replaceWith(path string, data []byte) error {
	return atomicfile.Replace(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// judgedOnlyRelevant reports whether every judgment of c is a grade-1
// document of its Relevant list, so that relevant: alone says them all
// (with recall_over: relevant a listed document gets grade 1 only when the
// case has no judgments: field).
func judgedOnlyRelevant(c assay.Case) bool {
	for id, g := range c.Judgments {
		if g != 1 || !slices.Contains(c.Relevant, id) {
			return false
		}
	}
	return true
}

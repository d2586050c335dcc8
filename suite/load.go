package suite

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/internal/schemaseam"
	"github.com/assay-eval/assay/metric"
)

// Load reads the suite at path (native or auto-detected format), resolves
// every default and loads its corpus. It is LoadWith(path, LoadOptions{}).
func Load(path string) (*assay.Suite, error) { return LoadWith(path, LoadOptions{}) }

// LoadWith reads the suite at path. A file or directory recognised as one of
// the foreign formats (formats.go) is read by that format's loader; anything else is parsed
// as the native format.
//
// The error is one line, positioned "file:line:col: msg" where possible.
// Besides syntax and type errors, LoadWith refuses a suite with a structural
// fault: duplicate or missing case ids, a missing query, an invalid regexp,
// an unknown metric, a bad json_schema, k < 1, an unknown gain. Lint reports
// the same faults as findings instead.
func LoadWith(path string, o LoadOptions) (*assay.Suite, error) {
	l, err := load(path, kindOf(path), o)
	if err != nil {
		return nil, err
	}
	if len(l.probs) > 0 {
		return nil, l.probError(l.probs[0])
	}
	return l.suite, nil
}

// loaded is a suite with the structural problems found while loading it.
type loaded struct {
	suite  *assay.Suite
	file   string
	probs  []problem // sorted by position
	native *parsed   // nil for a foreign format
}

func (l *loaded) probError(p problem) error {
	if p.src != "" {
		return fmt.Errorf("%s: %s", p.src, p.msg)
	}
	if p.file != "" {
		return Errorf(p.file, p.line, p.col, "%s", p.msg)
	}
	return Errorf(l.file, p.line, p.col, "%s", p.msg)
}

// load loads the suite at path, whose kind is k.
func load(path string, k fileKind, o LoadOptions) (*loaded, error) {
	if k.foreign != "" {
		s, err := k.loadForeign(path, o)
		if err != nil {
			return nil, err
		}
		if s.Path == "" {
			s.Path = path
		}
		if s.Dir == "" {
			s.Dir = suiteDir(path)
		}
		if s.Name == "" {
			s.Name = baseName(path)
		}
		resolveJudgments(s)
		fillDefaults(s)
		l := &loaded{suite: s, file: path}
		l.probs = checkStructure(s)
		oneLineProblems(l.probs)
		return l, nil
	}
	if err := checkSuiteFile(path); err != nil {
		return nil, err
	}
	p, err := parseFile(path, k.jsonl)
	if err != nil {
		return nil, err
	}
	return loadParsed(path, p)
}

// loadParsed completes the load of the native suite file at path that
// parseFile read into p: paths, the corpus, the cases file, json_schema
// files, defaults, and the problems in order.
func loadParsed(path string, p *parsed) (*loaded, error) {
	s := p.suite
	s.Path = path
	s.Dir = fileDir(path)
	if s.Name == "" {
		s.Name = baseName(path)
	}
	if s.CorpusSource != "" && s.CorpusSource != "inline" {
		if err := loadCorpus(s, p); err != nil {
			return nil, err
		}
	}
	if p.casesFile != "" {
		full, f, err := openCasesFile(p, s.Dir)
		if err != nil {
			return nil, err
		}
		err = decodeCasesFile(p, full, f, nil, nil)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	p.probs = append(p.probs, checkSchemas(s, p)...)
	if p.judgmentsFile != "" {
		if err := mergeJudgmentsFile(s, p); err != nil {
			return nil, err
		}
	}
	oneLineProblems(p.probs)
	resolveJudgments(s)
	fillDefaults(s)
	slices.SortStableFunc(p.probs, func(a, b problem) int {
		if a.file != b.file { // the suite file's first, then the cases file's
			return strings.Compare(a.file, b.file)
		}
		if a.line != b.line {
			return a.line - b.line
		}
		return a.col - b.col
	})
	return &loaded{suite: s, file: path, probs: p.probs, native: p}, nil
}

// checkSuiteFile fails unless path is a file a native suite may be in.
func checkSuiteFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, unwrapFSError(err))
	}
	if fi.IsDir() {
		return fmt.Errorf("%s: a directory, but not one of a known suite format (native suites are .yaml or .json files)", path)
	}
	if _, err := boundedfile.Check(path, boundedfile.Suite); err != nil {
		return err
	}
	return nil
}

func unwrapFSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// suiteDir is the directory relative paths of the suite at path resolve
// against: the directory itself for a directory suite.
func suiteDir(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path
	}
	return fileDir(path)
}

// fileDir is the directory relative paths of the suite file at path
// resolve against: the working directory for a suite read from a file
// descriptor (/dev/stdin, a shell's <(...)), else the file's directory.
func fileDir(path string) string {
	if boundedfile.IsDescriptorPath(path) {
		return "."
	}
	return filepath.Dir(path)
}

// baseName is the file name without its extension(s) (.yaml, .json.gz...).
func baseName(path string) string {
	b := filepath.Base(filepath.Clean(path))
	for _, ext := range []string{".gz", ".yaml", ".yml", ".json", ".jsonl", ".tsv", ".txt"} {
		b = strings.TrimSuffix(b, ext)
	}
	if b == "" || b == "." || b == string(filepath.Separator) {
		return "suite"
	}
	return b
}

// fillDefaults resolves every suite-level default.
func fillDefaults(s *assay.Suite) {
	if s.Defaults.K == 0 {
		s.Defaults.K = assay.DefaultK
	}
	if s.Metrics == nil {
		s.Metrics = slices.Clone(assay.DefaultMetrics)
	}
	if s.Gain == "" {
		s.Gain = assay.GainLinear
	}
	if s.Corpus != nil && s.CorpusSource == "" {
		s.CorpusSource = "inline"
	}
}

// loadCorpus loads the corpus path written in the suite, resolved against
// the suite's directory. A path that cannot be read is an error at the
// `corpus:` value; a fault inside a corpus file is positioned in that file.
func loadCorpus(s *assay.Suite, p *parsed) error {
	written := s.CorpusSource
	full := resolvePath(s.Dir, written)
	line, col := p.topLines["corpus.value"], p.topLines["corpus.value:col"]
	fi, err := os.Stat(full)
	if err != nil {
		return Errorf(s.Path, line, col, "corpus: cannot read %q: %v", written, unwrapFSError(err))
	}
	if !fi.IsDir() && !strings.HasSuffix(full, ".jsonl") && !strings.HasSuffix(full, ".jsonl.gz") {
		return Errorf(s.Path, line, col, "corpus: %q is not a corpus: want a directory of .md/.txt files, a .jsonl or a .jsonl.gz file", written)
	}
	docs, err := corpus.Load(full)
	if err != nil {
		return err
	}
	s.Corpus = docs
	s.CorpusSource = full
	if len(docs) == 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("corpus %s holds no documents", written))
	}
	return nil
}

// checkSchemas resolves every json_schema path against the suite dir and
// compiles it once.
func checkSchemas(s *assay.Suite, p *parsed) []problem {
	var probs []problem
	compiled := map[string]string{} // full path -> "" or the error
	for i := range s.Cases {
		e := &s.Cases[i].Expect
		if e.JSONSchema == "" {
			continue
		}
		full := resolvePath(s.Dir, e.JSONSchema)
		e.JSONSchemaPath = full
		msg, done := compiled[full]
		if !done {
			msg = compileSchema(full)
			compiled[full] = msg
		}
		if msg != "" {
			lines := p.caseLines[i]
			probs = append(probs, problem{line: lines.at("expect.json_schema:line"), col: lines.at("expect.json_schema:col"),
				file: caseFileOf(s, s.Cases[i]), msg: fmt.Sprintf("json_schema: %q: %s", e.JSONSchema, msg)})
		}
	}
	return probs
}

// compileSchema returns "" when the file holds a valid JSON Schema, or why
// not. The registered validator compiles it (package grade/jsonschema
// registers one); with none, the file is only read and checked to be
// well-nested JSON, and package grade refuses the suite's json_schema
// checks, saying which package to import.
func compileSchema(full string) string {
	f, err := boundedfile.Open(full, boundedfile.Schema)
	if err != nil {
		return fmt.Sprintf("cannot read it: %v", unwrapFSError(boundedfile.Reason(err)))
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("cannot read it: %v", err)
	}
	if e := nesting.JSON(data); e != nil {
		return fmt.Sprintf("line %d column %d: %s", e.Line, e.Col, e.Msg)
	}
	v := schemaseam.Registered()
	if v == nil {
		return ""
	}
	abs, err := filepath.Abs(full)
	if err != nil {
		abs = full
	}
	return v.Check(abs, data)
}

// checkStructure finds the structural faults of a suite read by a foreign
// loader, positioned by each case's Source.
func checkStructure(s *assay.Suite) []problem {
	var probs []problem
	at := func(c assay.Case, format string, args ...any) {
		src := c.Source
		if src == "" {
			src = s.Path
		}
		probs = append(probs, problem{src: src, msg: fmt.Sprintf(format, args...)})
	}
	if len(s.Cases) == 0 {
		probs = append(probs, problem{src: s.Path, msg: "the suite has no cases"})
	}
	ids := map[string]string{}
	for i, c := range s.Cases {
		switch {
		case c.ID == "":
			at(c, "case %d has no id", i+1)
		case c.Query == "":
			at(c, "case %q has no query", c.ID)
		}
		if c.ID != "" {
			if first, dup := ids[c.ID]; dup {
				at(c, "duplicate case id %q (first at %s)", c.ID, first)
			} else {
				ids[c.ID] = c.Source
			}
		}
		if c.K < 0 {
			at(c, "case %q: k must be at least 1, got %d", c.ID, c.K)
		}
		for _, l := range expectLists(c.Expect) {
			for j, v := range l.vals {
				if v == "" {
					at(c, "case %q: %s", c.ID, emptyItemProblem(l.key, j, len(l.vals)))
				}
			}
		}
		if c.Expect.AnswerMatches != "" {
			if _, err := regexp.Compile(c.Expect.AnswerMatches); err != nil {
				at(c, "case %q: answer_matches: invalid regexp: %s", c.ID, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
			}
		}
		if c.Expect.JSONSchema != "" {
			if c.Expect.JSONSchemaPath == "" {
				s.Cases[i].Expect.JSONSchemaPath = resolvePath(s.Dir, c.Expect.JSONSchema)
			}
			if msg := compileSchema(s.Cases[i].Expect.JSONSchemaPath); msg != "" {
				at(c, "case %q: json_schema: %q: %s", c.ID, c.Expect.JSONSchema, msg)
			}
		}
	}
	for _, m := range s.Metrics {
		if _, err := metric.Parse(m); err != nil {
			probs = append(probs, problem{src: s.Path, msg: "metrics: " + err.Error()})
		}
	}
	if s.Gain != assay.GainLinear && s.Gain != assay.GainExponential {
		probs = append(probs, problem{src: s.Path, msg: fmt.Sprintf("gain: unknown gain %q (want %q or %q)", s.Gain, assay.GainLinear, assay.GainExponential)})
	}
	return probs
}

// emptyItemProblem is the problem of an empty string at index i of an
// expectation list: it is always a slip (a blank YAML item, a trailing
// comma), and it would silently pass (answer_includes: every answer
// contains "") or fail (answer_excludes) every case.
func emptyItemProblem(key string, i, n int) string {
	if n == 1 {
		return fmt.Sprintf("%s: an empty string: give the text, or remove %s", key, key)
	}
	return fmt.Sprintf("%s: item %d is an empty string: give the text, or remove the item", key, i+1)
}

// expectList is one list-valued expectation of a case, by its field name.
type expectList struct {
	key  string
	vals []string
}

// expectLists are the list-valued expectations of e.
func expectLists(e assay.Expect) []expectList {
	return []expectList{
		{"answer_includes", e.AnswerIncludes}, {"answer_includes_any", e.AnswerIncludesAny},
		{"answer_excludes", e.AnswerExcludes}, {"retrieves", e.Retrieves}, {"cites", e.Cites},
		{"cites_any", e.CitesAny}, {"cited", e.Cited}, {"cited_any", e.CitedAny},
		{"calls_tool", e.CallsTool}, {"never_calls", e.NeverCalls},
	}
}

// caseFileOf is the file case c of s is in when it is not the suite file
// (a JSONL cases file), else "".
func caseFileOf(s *assay.Suite, c assay.Case) string {
	if f, _ := sourceLine(c.Source); f != "" && f != s.Path {
		return f
	}
	return ""
}

// parseFile reads and parses the native suite file at path: a JSONL suite
// (jsonl) line by line, any other whole.
func parseFile(path string, jsonl bool) (*parsed, error) {
	if jsonl {
		f, err := boundedfile.Open(path, boundedfile.Suite)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return decodeJSONL(path, f, nil, nil, nil)
	}
	src, err := boundedfile.ReadFile(path, boundedfile.Suite)
	if err != nil {
		return nil, err
	}
	return parseNative(path, src)
}

// sourceLine splits "file:line" into its parts (line 0 when absent).
func sourceLine(src string) (string, int) {
	i := strings.LastIndexByte(src, ':')
	if i < 0 {
		return src, 0
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil {
		return src, 0
	}
	return src[:i], n
}

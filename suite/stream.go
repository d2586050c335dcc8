package suite

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
)

// CaseSeq yields a suite's cases in suite order; each call reads them
// afresh. It is the one case iterator, assay.Seq.
type CaseSeq = assay.Seq[assay.Case]

// Streamed is a loaded suite whose cases may not be held in memory.
type Streamed struct {
	Suite       *assay.Suite // everything but the cases; Suite.Cases is nil when the cases are streamed, else all of them
	N           int          // number of cases
	Fingerprint string       // == Fingerprint(fully loaded suite)
	Cases       CaseSeq

	// Nuggets is true when a case states expect.nuggets (the run reports
	// the nugget metrics); NuggetJudge names the first case with a nugget
	// that asks for the judge (assign: judge), "file:line: case ID", or "".
	Nuggets     bool
	NuggetJudge string

	// schemas are the distinct resolved json_schema paths of the cases,
	// for CheckManifestStreamed.
	schemas []string
	// casesFile is the JSONL cases file of a native suite that names one
	// (for the manifest), else "".
	casesFile string
}

// idHash is what Stream keeps of each case id to find duplicates (tests
// replace it to make ids collide).
var idHash = func(id string) uint64 { return maphash.String(idSeed, id) }

var idSeed = maphash.MakeSeed()

// Stream loads the suite at path like LoadWith — the same checks, the same
// first error, byte for byte — but for a JSONL suite, or a native suite
// whose cases: names a JSONL file, it keeps no case: it validates every
// case in one pass over the lines (computing the fingerprint as it goes)
// and Cases reads the lines again. Every other suite (YAML and JSON
// suites with their cases inline, foreign formats) is loaded whole, and
// Cases ranges over Suite.Cases.
//
// Whatever makes the streaming pass stop (a fault of any kind, a possibly
// duplicate id, a file that changes meanwhile) makes Stream load the suite
// whole with LoadWith instead, so every error is LoadWith's.
func Stream(path string, o LoadOptions) (*Streamed, error) {
	k := kindOf(path)
	st, p := streamNativeWith(path, k, nil)
	if st != nil {
		return st, nil
	}
	var l *loaded
	var err error
	if p != nil {
		l, err = loadParsed(path, p)
	} else {
		l, err = load(path, k, o)
	}
	if err != nil {
		return nil, err
	}
	if len(l.probs) > 0 {
		return nil, l.probError(l.probs[0])
	}
	return wholeStreamed(l.suite), nil
}

// errJudgmentsFileWhole stops streaming a suite that names a
// judgments_file: such a suite is loaded whole.
var errJudgmentsFileWhole = errors.New("a suite with a judgments_file is loaded whole")

// wholeStreamed is the Streamed of a suite loaded whole.
func wholeStreamed(s *assay.Suite) *Streamed {
	st := &Streamed{Suite: s, N: len(s.Cases), Fingerprint: Fingerprint(s), Cases: func(yield func(assay.Case) error) error {
		for _, c := range s.Cases {
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	}}
	for _, c := range s.Cases {
		st.NoteNuggets(c)
	}
	return st
}

// NoteNuggets records in st what case c's nuggets need (Nuggets,
// NuggetJudge).
func (st *Streamed) NoteNuggets(c assay.Case) {
	for _, n := range c.Expect.Nuggets {
		st.Nuggets = true
		if n.Assign == assay.NuggetAssignJudge && st.NuggetJudge == "" {
			st.NuggetJudge = "case " + c.ID
			if c.Source != "" {
				st.NuggetJudge = c.Source + ": " + st.NuggetJudge
			}
		}
	}
}

// streamNativeWith streams a JSONL suite, or a native suite whose cases
// are in a JSONL file: it returns nil when the suite is not one, or has
// any fault. For a native suite with its cases inline it returns, as
// whole, the parse of the file (so that the caller needs not parse it
// again), unless that parse failed.
//
// When each is set, it also hands every case of its validating pass, with
// the case's field lines and lint warnings, to the caseFunc each returns.
// each is called once the suite's header is read (corpus loaded, defaults
// filled, before the first case) with the suite and its parse so far (its
// topLines and the lint warnings of the header). A case each's caseFunc
// receives may be followed by a fault that makes streamNativeWith return nil.
func streamNativeWith(path string, k fileKind, each func(s *assay.Suite, p *parsed) caseFunc) (st *Streamed, whole *parsed) {
	if boundedfile.IsDescriptorPath(path) {
		return nil, nil // a pipe cannot be read twice: loaded whole
	}
	if k.foreign != "" {
		return nil, nil
	}
	jsonl := k.jsonl
	if checkSuiteFile(path) != nil {
		return nil, nil
	}
	dir := fileDir(path)
	compiled := map[string]string{} // resolved json_schema path -> "" or why it does not compile
	var d caseDigest
	var ids []uint64
	var sums []uint64 // lineSum of each case line, for the run's pass
	headerRead := false
	var also caseFunc
	var refs *refResolver
	var hs *assay.Suite
	var nug Streamed // what the cases' nuggets need
	header := func(p *parsed) error {
		headerRead = true
		if p.judgmentsFile != "" {
			// Its labels are merged into the cases: loaded whole.
			return errJudgmentsFileWhole
		}
		s := p.suite
		hs = s
		s.Path, s.Dir = path, dir
		if s.Name == "" {
			s.Name = baseName(path)
		}
		if s.CorpusSource != "" && s.CorpusSource != "inline" {
			if err := loadCorpus(s, p); err != nil {
				return err
			}
		}
		fillDefaults(s)
		refs = newRefResolver(s.Corpus)
		if each != nil {
			also = each(s, p)
		}
		return nil
	}
	onCase := func(c assay.Case, lines fieldLines, warns []problem) error {
		if w := refs.resolve(&c); len(w) > 0 { // judgments keyed by path or title
			hs.Warnings = append(hs.Warnings, w...)
		}
		refs.note(&c)
		if c.Expect.JSONSchema != "" {
			full := resolvePath(dir, c.Expect.JSONSchema)
			c.Expect.JSONSchemaPath = full
			msg, done := compiled[full]
			if !done {
				msg = compileSchema(full)
				compiled[full] = msg
			}
			if msg != "" {
				return errCaseProblem
			}
		}
		d.add(&c, dir)
		nug.NoteNuggets(c)
		ids = append(ids, idHash(c.ID))
		if also != nil {
			return also(c, lines, warns)
		}
		return nil
	}
	casesPath := path
	var fi os.FileInfo
	var p *parsed
	if jsonl {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil
		}
		defer f.Close()
		if fi, err = f.Stat(); err != nil {
			return nil, nil
		}
		if p, err = decodeJSONL(path, boundedfile.Reader(f, boundedfile.Suite), header, onCase, &sums); err != nil {
			return nil, nil
		}
		if !unchanged(f, fi) {
			return nil, nil
		}
	} else {
		var err error
		if p, err = parseFile(path, false); err != nil {
			return nil, nil
		}
		if p.casesFile == "" {
			return nil, p
		}
		if len(p.probs) > 0 || header(p) != nil {
			return nil, nil
		}
		full, bf, err := openCasesFile(p, dir)
		if err != nil {
			return nil, nil
		}
		bf.Close()
		casesPath = full
		f, err := os.Open(full)
		if err != nil {
			return nil, nil
		}
		defer f.Close()
		if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return nil, nil
		}
		if decodeCasesFile(p, full, boundedfile.Reader(f, boundedfile.SuitePart), onCase, &sums) != nil || !unchanged(f, fi) {
			return nil, nil
		}
	}
	if !headerRead || len(p.probs) > 0 {
		return nil, nil
	}
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return nil, nil // maybe a duplicate id: the whole load says which
		}
	}
	ids = nil
	s := p.suite
	if w := refs.warning(); w != "" {
		s.Warnings = append(s.Warnings, w)
	}
	st = &Streamed{Suite: s, N: d.n, Fingerprint: fingerprintOf(s, &d), schemas: slices.Sorted(maps.Keys(compiled)), Nuggets: nug.Nuggets, NuggetJudge: nug.NuggetJudge}
	if casesPath != path {
		st.casesFile = casesPath
	}
	st.Cases = streamCases(casesPath, jsonl, dir, fi, sums, s.RecallOver, refs)
	return st, nil
}

// unchanged reports whether the open file f has the size and time of fi.
func unchanged(f *os.File, fi os.FileInfo) bool {
	now, err := f.Stat()
	return err == nil && now.Size() == fi.Size() && now.ModTime().Equal(fi.ModTime()) && now.Mode() == fi.Mode()
}

// streamCases reads the cases of the JSONL file at path (after its header
// line when header is set), which Stream validated when it had the size
// and time of fi and whose case lines had the lineSums sums. Each line is
// checked against its sum before it is decoded, so only a case Stream
// validated (the same bytes at the same line) is yielded, and a file that
// changed since stops the pass before the case is run; the line is decoded
// once here, without the checks and the digest of the validating pass.
// recallOver is the suite's recall_over, which decides Case.Relevant;
// refs resolves the judgments as the validating pass did.
func streamCases(path string, header bool, dir string, fi os.FileInfo, sums []uint64, recallOver string, refs *refResolver) CaseSeq {
	return func(yield func(assay.Case) error) error {
		changed := fmt.Errorf("%s: changed while the run was reading it; run again", path)
		if fi, err := boundedfile.Check(path, boundedfile.Suite); err != nil || !fi.Mode().IsRegular() {
			return changed // it was a regular file within the limit when Stream read it
		}
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("%s: %v", path, unwrapFSError(err))
		}
		defer f.Close()
		if !unchanged(f, fi) {
			return changed
		}
		l := newJSONLLines(path, f)
		if header {
			if _, _, err := l.next(); err != nil {
				return changed
			}
		}
		var yerr error
		r := &nodeReader{file: path}
		d := &nativeDecoder{r: r, p: &parsed{suite: &assay.Suite{RecallOver: recallOver}}}
		d.onCase = func(c assay.Case, _ fieldLines, _ []problem) error {
			if c.Expect.JSONSchema != "" {
				c.Expect.JSONSchemaPath = resolvePath(dir, c.Expect.JSONSchema)
			}
			refs.resolve(&c)
			if err := yield(c); err != nil {
				yerr = err
				return err
			}
			return nil
		}
		i := 0
		lines := func(yield func(caseItem) error) error {
			for {
				line, n, err := l.next()
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil || i == len(sums) || lineSum(line, n) != sums[i] {
					return changed
				}
				i++
				if err := yield(caseItem{line: line, n: n, validated: true}); err != nil {
					return err
				}
			}
		}
		err = d.caseItems(lines, 0)
		if yerr != nil {
			return yerr
		}
		if err != nil || i != len(sums) || !unchanged(f, fi) {
			return changed
		}
		return nil
	}
}

// WriteManifestStreamed is WriteManifest of a suite Stream loaded (or
// Check checked), which needs not hold its cases.
func WriteManifestStreamed(st *Streamed) (string, error) {
	if st.Suite.Cases != nil {
		return WriteManifest(st.Suite)
	}
	return writeManifest(st.Suite, st.Fingerprint, st.manifestExtra())
}

// manifestExtra are the files of a streamed suite the manifest records
// besides the suite file and the corpus: the json_schema files and the
// cases file.
func (st *Streamed) manifestExtra() []string {
	if st.casesFile == "" {
		return st.schemas
	}
	return append(slices.Clone(st.schemas), st.casesFile)
}

// SchemaPaths returns the distinct resolved json_schema files of the cases
// (their Expect.JSONSchemaPath), so that a grader can load them without
// reading the cases.
func (st *Streamed) SchemaPaths() []string {
	if st.Suite.Cases == nil {
		return slices.Clone(st.schemas)
	}
	var out []string
	for _, c := range st.Suite.Cases {
		if p := c.Expect.JSONSchemaPath; p != "" {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

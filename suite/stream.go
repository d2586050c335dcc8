package suite

import (
	"fmt"
	"hash/maphash"
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

	// schemas are the distinct resolved json_schema paths of the cases,
	// for CheckManifestStreamed.
	schemas []string
}

// idHash is what Stream keeps of each case id to find duplicates (tests
// replace it to make ids collide).
var idHash = func(id string) uint64 { return maphash.String(idSeed, id) }

var idSeed = maphash.MakeSeed()

// Stream loads the suite at path like LoadWith — the same checks, the same
// first error, byte for byte — but for a native suite that the lean parse
// reads it keeps no case: it validates every case in one streaming pass
// (computing the fingerprint as it goes) and Cases re-reads the file.
// Every other suite (foreign formats, native suites the lean parse does
// not take) is loaded whole, and Cases ranges over Suite.Cases.
//
// Whatever makes the streaming pass stop (a fault of any kind, a possibly
// duplicate id, a file that changes meanwhile) makes Stream load the suite
// whole with LoadWith instead, so every error is LoadWith's.
func Stream(path string, o LoadOptions) (*Streamed, error) {
	if st := streamNative(path, o); st != nil {
		return st, nil
	}
	s, err := LoadWith(path, o)
	if err != nil {
		return nil, err
	}
	return wholeStreamed(s), nil
}

// wholeStreamed is the Streamed of a suite loaded whole.
func wholeStreamed(s *assay.Suite) *Streamed {
	return &Streamed{Suite: s, N: len(s.Cases), Fingerprint: Fingerprint(s), Cases: func(yield func(assay.Case) error) error {
		for _, c := range s.Cases {
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	}}
}

// streamNative is Stream of a native suite the lean parse reads, or nil
// when the suite is not one, or has any fault.
func streamNative(path string, o LoadOptions) *Streamed {
	return streamNativeWith(path, o, nil)
}

// streamNativeWith is streamNative that, when each is set, also hands every
// case of its validating pass, with the case's field lines and lint
// warnings, to the caseFunc each returns. each is called once the suite's
// header is read (corpus loaded, defaults filled, before the first case)
// with the suite and its parse so far (its topLines and the lint warnings
// of the header). A case each's caseFunc receives may be followed by a
// fault that makes streamNativeWith return nil.
func streamNativeWith(path string, o LoadOptions, each func(s *assay.Suite, p *parsed) caseFunc) (st *Streamed) {
	defer func() {
		if recover() != nil {
			st = nil
		}
	}()
	if !leanParse {
		return nil
	}
	if _, foreign := detectFormat(path, o); foreign {
		return nil
	}
	lf, ok := openLean(path)
	if !ok {
		return nil
	}
	defer lf.f.Close()
	body, ok := lf.sp.parseHeader()
	if !ok {
		return nil
	}
	dir := fileDir(path)
	compiled := map[string]string{} // resolved json_schema path -> "" or why it does not compile
	var d caseDigest
	ids := make([]uint64, 0, lf.sp.n) // the split counted the cases
	headerRead := false
	var also caseFunc
	var refs *refResolver
	header := func(p *parsed) error {
		headerRead = true
		s := p.suite
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
	p, err := decodeNativeWith(&nodeReader{file: path}, body, lf.sp.parsePieces(lf.rescan), lf.sp.n, header, func(c assay.Case, lines fieldLines, warns []problem) error {
		if refs != nil && refs.needs(&c) {
			return errCaseProblem // judgments keyed by path or title: the whole load resolves them
		}
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
		ids = append(ids, idHash(c.ID))
		if also != nil {
			return also(c, lines, warns)
		}
		return nil
	})
	if err != nil || !headerRead || len(p.probs) > 0 || d.n != lf.sp.n || !lf.unchanged() {
		return nil
	}
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return nil // maybe a duplicate id: the whole load says which
		}
	}
	ids = nil
	s := p.suite
	sp := lf.sp
	sp.header = nil
	st = &Streamed{Suite: s, N: d.n, Fingerprint: fingerprintOf(s, &d), schemas: slices.Sorted(maps.Keys(compiled))}
	st.Cases = streamCases(path, dir, lf.fi, sp, d, s.RecallOver)
	return st
}

// streamCases reads the cases of the file at path, which Stream validated
// when it had the size and time of fi and the cases summed in want. It
// checks the file's size and time before yielding each case (one fstat).
// recallOver is the header's recall_over, which decides Case.Relevant.
func streamCases(path, dir string, fi os.FileInfo, sp *leanSplit, want caseDigest, recallOver string) CaseSeq {
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
		lf := &leanFile{f: f, fi: fi, sp: sp}
		if !lf.unchanged() {
			return changed
		}
		var got caseDigest
		var yerr error
		d := &nativeDecoder{r: &nodeReader{file: path}, p: &parsed{suite: &assay.Suite{RecallOver: recallOver}}}
		d.onCase = func(c assay.Case, _ fieldLines, _ []problem) error {
			// Only a case Stream validated reaches yield: the split reads
			// ahead of it, so a file that changed since (or holds more
			// cases) stops the pass before the case is run.
			if got.n == want.n || !lf.unchanged() {
				return changed
			}
			if c.Expect.JSONSchema != "" {
				c.Expect.JSONSchemaPath = resolvePath(dir, c.Expect.JSONSchema)
			}
			got.add(&c, dir)
			if err := yield(c); err != nil {
				yerr = err
				return err
			}
			return nil
		}
		err = d.caseItems(sp.parsePieces(lf.rescan), sp.n)
		if yerr != nil {
			return yerr
		}
		if err != nil || got.n != want.n || got.sum != want.sum || !lf.unchanged() {
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
	return writeManifest(st.Suite, st.Fingerprint, st.schemas)
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

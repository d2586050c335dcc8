package trec

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/assay-eval/assay/internal/boundedfile"
)

// IO is the process state Main uses; the command wires it to the real
// process, tests to buffers.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Open opens a named input file. When the returned reader is also an
	// io.Seeker the run can be re-read, which lets the evaluator stream it.
	Open func(name string) (io.ReadCloser, error)
}

// Usage is the one-line synopsis.
const Usage = "usage: assay trec [-h] [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] {-m measure[.params]}* QRELS RUN\n"

// Help is printed by -h.
const Help = Usage + `
Evaluate a TREC run against qrels exactly as trec_eval v10.0 does, with
byte-identical output: same measures, names, order, rounding and messages.

  -q        also print per-topic values
  -c        average over all qrels topics; topics absent from the run score 0
  -n        no summary ("all") lines
  -J        drop retrieved documents that have no judgment before evaluating
  -l N      relevance threshold (default 1)
  -M N      keep only the top N documents of each topic (after sorting)
  -N N      number of documents in the collection (for utility)
  -m M      measure or set: official (default), all_trec, set, or a measure
            name such as P, ndcg_cut, map; parameters after a dot: -m P.5,10
  -h, -v    this help; the version

RUN may be "-" for standard input.

One deliberate difference from trec_eval v10.0: a qrels topic that is
missing from the run is skipped (as trec_eval 9.x did) instead of aborting
with "result qid not found in qrels" and exit status 4; a line on stderr
gives their count and first ids. With -c such a topic scores 0, as in
trec_eval.

Not supported: preference and judgment-group measures (all_prefs, prefs,
qrels_jg and their members), -R formats other than qrels, -Z and -D.

Exit status: 0 ok; 1 usage, unknown or unsupported measure; 2 unreadable or
malformed input, bad measure parameters, a report that cannot be written;
4 a duplicate document in a ranking or in the qrels; 7 no topic has both
results and judgments.
`

// usageFail is a command-line problem: message, usage, exit status 1.
func usageFail(msg string) *trecError {
	return &trecError{msg: msg + Usage, code: 1}
}

// parseArgs reads a trec_eval command line (getopt style: -q -l2 -l 2
// -M100 -m P.5,10 --measure=P, options and files in any order).
func parseArgs(args []string) (Config, *request, bool, error) {
	cfg := DefaultConfig()
	req := newRequest()
	help := false
	var pos []string
	withArg := "mlDNMRTZ"
	longs := map[string]byte{
		"help": 'h', "version": 'v', "query_eval_wanted": 'q', "measure": 'm',
		"complete_rel_info_wanted": 'c', "level_for_rel": 'l', "nosummary": 'n',
		"Debug_level": 'D', "Judged_docs_only": 'J', "Number_docs_in_coll": 'N',
		"Max_retrieved_per_topic": 'M', "Rel_info_format": 'R', "Results_format": 'T',
		"Output_old_results_format": 'o', "Zscore": 'Z',
	}
	apply := func(opt byte, val string) error {
		switch opt {
		case 'h':
			help = true
		case 'v':
			return &trecError{msg: "assay trec: trec_eval version 10.0 (compatible)\n", code: 0}
		case 'q':
			cfg.PerTopic = true
		case 'm':
			cfg.Measures = append(cfg.Measures, val)
			if err := req.mark(val); err != nil {
				return err
			}
		case 'c':
			cfg.Complete = true
		case 'l':
			// A negative level is taken as trec_eval takes it (see the
			// package doc and metric.Topic).
			cfg.RelLevel = atol(val)
		case 'n':
			cfg.NoSummary = true
		case 'D':
			return usageFail("assay trec: -D (trec_eval's debug output) is not supported\n")
		case 'o':
			// trec_eval v10.0 accepts -o (and --Output_old_results_format,
			// which takes an argument) and ignores it.
		case 'J':
			cfg.JudgedOnly = true
		case 'N':
			cfg.NumDocs = atol(val)
		case 'M':
			cfg.MaxRet = atol(val)
		case 'R':
			if val != "qrels" {
				return &trecError{msg: fmt.Sprintf("trec_eval: Illegal rel_format '%s' (assay trec reads qrels only)\n", val), code: 2}
			}
		case 'T':
			if val != "trec_results" {
				return &trecError{msg: fmt.Sprintf("trec_eval: Illegal retrieval results format '%s' (assay trec reads trec_results only)\n", val), code: 2}
			}
		case 'Z':
			return &trecError{msg: "assay trec: -Z (z-scores) is not supported\n", code: 2}
		}
		return nil
	}
	onlyFiles := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if onlyFiles || a == "-" || !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			continue
		}
		if a == "--" {
			onlyFiles = true
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			opt, ok := longs[name]
			if !ok {
				var match []string
				for l := range longs {
					if strings.HasPrefix(l, name) {
						match = append(match, l)
					}
				}
				if len(match) != 1 {
					return cfg, nil, false, usageFail(fmt.Sprintf("trec_eval: unrecognized option '%s'\n", a))
				}
				opt = longs[match[0]]
			}
			// The long form of -o takes an argument in trec_eval's
			// option table; the short one does not.
			if (strings.IndexByte(withArg, opt) >= 0 || opt == 'o') && !hasVal {
				if i+1 >= len(args) {
					return cfg, nil, false, usageFail(fmt.Sprintf("trec_eval: option '%s' requires an argument\n", a))
				}
				i++
				val = args[i]
			}
			if err := apply(opt, val); err != nil {
				return cfg, nil, false, err
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			opt := a[j]
			if strings.IndexByte("hvqmclnDJNMRTZo", opt) < 0 {
				return cfg, nil, false, usageFail(fmt.Sprintf("trec_eval: invalid option -- '%c'\n", opt))
			}
			if strings.IndexByte(withArg, opt) >= 0 {
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return cfg, nil, false, usageFail(fmt.Sprintf("trec_eval: option requires an argument -- '%c'\n", opt))
					}
					i++
					val = args[i]
				}
				if err := apply(opt, val); err != nil {
					return cfg, nil, false, err
				}
				break
			}
			if err := apply(opt, ""); err != nil {
				return cfg, nil, false, err
			}
		}
	}
	if help {
		return cfg, req, true, nil
	}
	if len(pos) != 2 {
		return cfg, nil, false, usageFail("")
	}
	cfg.Qrels, cfg.Run = pos[0], pos[1]
	if len(cfg.Measures) == 0 {
		req.mark("official")
	}
	return cfg, req, false, nil
}

// Main runs `assay trec` and returns its exit status. It prints trec_eval's
// output to sys.Stdout and trec_eval's messages to sys.Stderr.
func Main(args []string, sys IO) int {
	cfg, req, help, err := parseArgs(args)
	if err != nil {
		return fail(sys.Stderr, err)
	}
	if help {
		io.WriteString(sys.Stdout, Help)
		return 0
	}
	// Qrels first, then the run, then the measures, as trec_eval does.
	qdata, err := readAll(sys, cfg.Qrels)
	if err != nil {
		return fail(sys.Stderr, inputFail("trec_eval.get_qrels: Cannot read qrels file '%s'\ntrec_eval: Quit in file '%s'\n", cfg.Qrels, cfg.Qrels))
	}
	q, err := ParseQrels(qdata, cfg.Qrels)
	qdata = nil
	if err != nil {
		return fail(sys.Stderr, err)
	}
	pl, planErr := req.build()
	code, err := evaluate(cfg, q, pl, planErr, sys)
	if err != nil {
		return fail(sys.Stderr, err)
	}
	return code
}

func fail(w io.Writer, err error) int {
	var me *trecError
	if errors.As(err, &me) {
		io.WriteString(w, me.msg)
		return me.code
	}
	fmt.Fprintf(w, "assay trec: %v\n", err)
	return 2
}

// readAll reads the qrels file (never standard input, as in trec_eval).
func readAll(sys IO, name string) ([]byte, error) {
	f, err := sys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(boundedfile.Reader(f, boundedfile.Qrels))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// passBytes is the memory budget for an interleaved run, in bytes of run
// file: a file up to this size is collected in one pass (16 bytes of memory
// for a 37-byte line with a 7-byte docno, so about 110 MiB kept at most for
// such lines, under the 160 MiB soft limit `assay trec` runs with); a larger
// one in size/passBytes + 1 passes. Tests lower it.
var passBytes int64 = 256 << 20

// evaluate streams the run through the evaluator and prints the report.
func evaluate(cfg Config, q *Qrels, pl *plan, planErr error, sys IO) (int, error) {
	var r io.Reader
	var seeker io.Seeker
	if strings.HasPrefix(cfg.Run, "-") {
		r = sys.Stdin // trec_eval v10.0: a run name starting with '-'
	} else {
		f, err := sys.Open(cfg.Run)
		if err != nil {
			return 0, inputFail("trec_eval.get_results: Cannot read results file '%s'\ntrec_eval: Quit in file '%s'\n", cfg.Run, cfg.Run)
		}
		defer f.Close()
		r = f
		seeker, _ = f.(io.Seeker)
	}
	if cfg.MaxRet < 0 {
		cfg.MaxRet = 0
	}
	// An interleaved run is read again and collected, in one pass when it
	// is within passBytes, else in parts small enough to keep, each pass
	// collecting the topics whose index is part modulo parts.
	parts := 1
	if seeker != nil {
		if size, err := seeker.Seek(0, io.SeekEnd); err == nil {
			parts = int(size/passBytes) + 1
		}
		if _, err := seeker.Seek(0, io.SeekStart); err != nil {
			seeker = nil
		}
	}
	eager := seeker != nil
	ev := &evaluator{cfg: cfg, q: q, plan: pl, results: make([]topicResult, len(q.topics))}
	var tag []byte
	for part := 0; ; {
		rr := &runReader{q: q, eager: eager, part: part, parts: parts}
		if !eager && seeker == nil {
			rr.parts = 1 // standard input: one pass keeping everything
		}
		var p *pool
		if planErr == nil {
			p = ev.startPool()
			rr.submit = func(j job) { p.jobs <- j }
		} else {
			rr.submit = func(job) {}
		}
		err := rr.read(r, cfg.Run)
		if p != nil {
			p.wait()
		}
		if err == errFragmented {
			clear(ev.results)
			eager = false
			if _, serr := seeker.Seek(0, io.SeekStart); serr != nil {
				return 0, serr
			}
			continue
		}
		if err != nil {
			return 0, err
		}
		tag = rr.tag
		part++
		if eager || rr.parts == 1 || part >= rr.parts {
			break
		}
		if _, serr := seeker.Seek(0, io.SeekStart); serr != nil {
			return 0, serr
		}
	}
	if planErr != nil {
		return 0, planErr
	}
	return ev.report(sys.Stdout, sys.Stderr, tag), nil
}

// Package trec is `assay trec`: a drop-in for trec_eval v10.0 whose output
// is byte-identical to trec_eval's (trec_eval v10.0's behaviour is the
// specification, its upstream test pairs the conformance suite; where and
// why assay differs is in docs/trec.md, the measures in docs/metrics.md).
// The measures themselves are package metric's Topic methods, the same code
// `assay run` uses for per-case metrics; this package parses the files and
// the command line, forms each topic's ranking, and prints.
//
// # Pipeline
//
//  1. The command line is read as trec_eval's getopt does (-q -c -n -J,
//     -l N, -M N, -N N, -m name[.params], joined or separated, long forms).
//     -m marks measures or the nicknames official (default), all_trec and
//     set; the first parameter string given for a measure wins.
//  2. The qrels are read whole ("qid iter docno rel"; exactly four fields,
//     a blank line is malformed, a column-0 '#' line is a comment whose next
//     line is always data). Each topic gets an open-addressing table of its
//     judged docnos.
//  3. The run ("qid iter docno rank score tag ...") is streamed in 1 MiB
//     chunks cut at line ends and parsed by GOMAXPROCS goroutines: blank
//     and '#' lines are skipped, score is C atof, iter and rank are ignored,
//     the runid is the tag of the last data line. Each line keeps its score
//     and where its docno is in the chunk; a chunk is kept until the topics
//     it holds have been evaluated, then its buffers are reused, and at
//     most GOMAXPROCS+2 chunks are between the reader and the in-order
//     loop, so a run of contiguous topics is read with a few chunks'
//     memory however the parsers are scheduled.
//  4. A topic whose lines have all been read is handed to an evaluation
//     goroutine while parsing goes on: its lines are sorted by score
//     descending, then docno descending (byte order); cut at -M; checked for
//     duplicate docnos; labelled from the qrels (-1 not judged, -2 negative
//     grade); filtered by -J; and every requested measure is computed.
//     When a run's topics are interleaved (a topic's lines reappear after
//     another topic's, usually seen in the first chunk), the run is read
//     again, collecting: the parsers pack each chunk's lines by topic as
//     records (score, docno length, docno: about 16 bytes for a 37-byte
//     line), one in-order writer appends them to per-topic blocks, and
//     every topic is evaluated once the file has been read. A run of up to
//     passBytes (256 MiB) is collected in that one pass; a larger one in
//     size/passBytes + 1 passes, each keeping the topics whose index is the
//     pass number modulo the number of passes. Standard input is collected
//     in one pass (docs/benchmarks.md has what a shuffled run costs
//     against its grouped form).
//     The ranking is a total order (NaN scores rank last), so it does not
//     depend on the order of the lines either.
//  5. The report walks the qrels topics in byte order of qid, printing
//     per-topic rows with -q and then the summary: means (one division of
//     the sum taken in topic order), sums for the counts, geometric means for
//     gm_map and gm_bpref, "%-22s\t%s\t%6.4f" with NaN as "-nan".
//
// # Deliberate difference
//
// A qrels topic that is missing from the run is skipped, as trec_eval 9.x
// did; trec_eval v10.0 aborts there with "result qid 'X' not found in qrels"
// and exit status 4. The skip is said on the error writer, one line after
// the report: "assay trec: skipped N qrels topics not in the run (ID ...);
// trec_eval v10.0 would stop, -c scores them", naming the first five ids in
// qid order. With -c the topic scores 0 (v10.0 semantics: it is
// evaluated as one unjudged document, then the values trec_eval resets by
// printed name are forced to zero/empty: num_ret, every unj_k, and utility,
// relstring and rbp_resid under their bare names only; utility_A,B,C,D,
// relstring_N and rbp_resid_p=P keep what the one document gives), and its
// rows are printed.
//
// # Errors and exit statuses
//
// trec_eval's messages are reproduced on the error writer: 1 for usage and
// unknown measures ("trec_eval: illegal measure 'x'"), 2 for unreadable or
// empty files, malformed lines ("trec_eval.get_qrels: Malformed line N",
// N counting data lines) and bad cutoffs, 4 for a duplicate docno in a
// ranking or in the qrels of an evaluated topic and for utility without 4
// coefficients, 7 when no topic has both results and judgments.
//
// Out of scope: -R prefs/qrels_jg, -T, -Z (z-scores) and -D (debug). The
// preference and judgment-group measures and their sets (all_prefs, prefs,
// qrels_jg, prefs_*, map_avgjg, P_avgjg, Rprec_mult_avgjg) are refused with
// "assay trec: measure 'X' is not supported: ..." and exit status 1, not as
// illegal measures; -D (--Debug_level) is a usage error (exit status 1).
// -o, and its long form --Output_old_results_format, which takes an
// argument in trec_eval's option table, are accepted and ignored, as
// trec_eval v10.0 ignores them.
//
// A report that cannot be written (a full disk; a closed pipe, once the
// command ignores SIGPIPE) stops with "assay trec: cannot write the report:
// ..." and exit status 2.
// Non-ascending 11pt_avg points give trec_eval's order-dependent answer.
//
// Numbers are read as C reads them: atol saturates (P.99999999999999999999
// is P_9223372036854775807), and integer cutoffs are sorted as trec_eval
// sorts them, by glibc's merge sort (qsort in glibc 2.36) with a comparator
// that truncates the difference to an int. When that leaves cutoffs out of
// order (they are 2^31 or more apart), the order is kept and printed, and
// the values are trec_eval's: its walk down the ranking matches cutoffs
// only while the list ascends, and every cutoff from the first that is not
// above its predecessor takes the end-of-ranking value, divided by the
// cutoff where the measure divides by it (P_5 of P.5,3000000000 is RR/5;
// a cutoff <= 0 sorted behind the first escapes trec_eval's check and
// divides by itself: inf, nan or negative). Read from the source (commit
// dc0c991), not compared with a v10.0 binary.
//
// A negative -l is taken as trec_eval takes it (read from its source,
// commit dc0c991, not compared with a v10.0 binary; metric's package doc
// has the rules): num_rel and num_rel_ret count the judged documents (grade
// >= 0), the measures that test each rank count unjudged ones as relevant
// too, and map, binG and yaap can be inf. A -c topic absent from the run is
// scored on trec_eval's one document outside the pool, which -l -1 counts as
// relevant (map 1/R).//
// # The line reader other packages use
//
// ParseQrelsLine and ParseRunLine read one line as ParseQrels and the run
// reader do (fields, comments, C atol grades and C atof scores), and
// SortRanking orders a topic as the evaluator does (NaN last). The suite
// package reads TREC qrels with them and the trec: target reads run files
// with them, so that `assay run --target trec:RUN` and `assay trec` read a
// file the same way. The whole-file readers keep their own loops: they are
// the fast path of `assay trec` (docs/benchmarks.md); lines_test.go holds
// them to the same results.
package trec

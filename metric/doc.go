// Package metric computes IR measures exactly as trec_eval v10.0 does. It is
// the one implementation of the measures in assay: the per-case metrics of
// `assay run` (through Spec.Eval) and every measure of `assay trec` (through
// Topic) run this code. It imports the standard library only, so every
// number can be checked by reading this package. docs/metrics.md states the
// same definitions for users.
//
// # Inputs
//
// A case (a trec_eval "topic") has a ranking, the document ids in rank order
// with rank 1 first, and judgments, a grade per document id. Spec.Eval
// expects the ranking already de-duplicated (a repeated id keeps its first
// position; assay's grader does this). Each ranked document gets a label:
//
//   - no judgment for it: -1 ("not in pool"), never relevant;
//   - a negative grade: -2 ("in the pool, unjudged"), never relevant;
//   - otherwise its grade g >= 0.
//
// A rank is relevant when its label is >= ℓ, the relevance threshold
// (Options.RelLevel, default 1; trec_eval's -l). R is the number of judgments
// with grade >= ℓ, retrieved or not, n the ranking length, rel(i) whether rank
// i is relevant, and rels(k) the number of relevant ranks among 1..min(k,n).
// All arithmetic is float64, summed rank by rank.
//
// # Per-case measures (Parse, Spec.Eval, EvalAll)
//
//	precision@k  rels(k) / k                         (k, not min(k,n): missing ranks count as non-relevant)
//	recall@k     rels(k) / R                         (0 when R = 0)
//	hit@k        1 if rels(k) > 0, else 0            (trec_eval success_k)
//	mrr          1/i for the first relevant rank i   (whole ranking, no cutoff; trec_eval recip_rank)
//	map          Σ_{i relevant} (rels(i)/i) / R      (average precision; 0 when R = 0)
//	rprec        rels(min(n,R)) / R                  (R-precision; 0 when R = 0 or n = 0)
//	ndcg@k       DCG@k / IDCG@k                      (trec_eval ndcg_cut_k)
//	ndcg         DCG / IDCG over the whole ranking   (trec_eval ndcg)
//
// DCG@k = Σ_{i ≤ min(k,n), label(i) > 0} gain(label(i)) / log2(i+1), so rank 1
// has discount 1. The ideal list is every judgment with grade > 0 sorted by
// grade descending, retrieved or not; IDCG@k sums its first min(k, len)
// entries with the same discount. gain(g) = g (linear, trec_eval's choice) or
// 2^g − 1 with Options.Exponential. When IDCG@k = 0 the value is 0. nDCG does
// not use the relevance threshold: a grade-1 document keeps gain 1 under ℓ = 2.
//
// A case with no relevant judgment (R = 0) scores 0 on every measure except
// nDCG, which still counts grades between 1 and ℓ−1. An empty ranking scores 0.
// Such cases are not dropped by this package: whoever averages decides.
//
// # trec_eval measures (Topic)
//
// Topic carries the labels of a ranking and the grades of all judgments, and
// has one method per trec_eval measure (AP, APCut, RPrec, Bpref, RecipRank,
// P, Recall, IPrecAtRecall, InfAP, RPrecMult, Utility, BinG, G, NDCG,
// NDCGRel, RNDCG, NDCGCut, RelativeP, Success, the set measures, RBP,
// RBPResid, Unj). Their definitions are those of trec_eval v10.0 and are
// written next to each method. Package trec builds Topics from qrels and run
// files and prints them as trec_eval does.
//
// The gain table (GainTable, for G, dcg, ideal_dcg, ndcg, ndcg_rel, Rndcg
// and rbp) follows trec_eval's setup_gains: custom level=gain pairs first,
// in parameter order, then every level 0..max grade not among them with gain
// = level; sorted by a merge sort whose comparator truncates the gain
// difference to an integer (so fractional gains may stay out of order). A
// ranked document gains the first entry of its level in that order; a level
// the table lacks gains 0 (a custom negative level, -1 or -2, gives
// unjudged documents a gain). The ideal list walks the table from its last
// entry down, one position per judgment: an empty level is passed over
// whatever its gain, and the walk stops at the first non-empty level whose
// gain is <= 0 (or at once when the last entry's gain is <= 0). rbp rescales
// the gains to (g − lo)/(hi − lo) when lo < 0 or hi > 1, with lo and hi the
// lowest and highest table gain and 0: trec_eval v10.0 leaves the two
// uninitialised, and its stock build starts them at 0, which is visible only
// when level 0's gain is overridden or every gain is negative.
//
// # A negative threshold (trec_eval -l -1)
//
// Topic takes a negative Threshold as trec_eval's source (commit dc0c991)
// does; nothing else in assay uses one. R and RR (num_rel, num_rel_ret)
// count judgments and ranks with a grade >= 0 only, as with Threshold 0,
// but every test of a rank's label against the threshold also counts the
// labels -1 (Threshold <= -1) and -2 (Threshold <= -2): map, map_cut,
// binG, yaap, P, recall, Rprec, recip_rank, relative_P and success count
// those ranks as relevant (recall can exceed 1). bpref and infAP set the
// unjudged ranks aside first, so they are as under Threshold 0; the
// gain-based measures ignore the threshold. map and binG divide by R only
// after finding a relevant rank, so a topic with R = 0 and an unjudged rank
// has map +Inf. iprec_at_recall, 11pt_avg and Rprec_mult walk the ranking
// from the bottom with a count that starts at RR and drops at each relevant
// rank; the count runs out above the first relevant rank, and a rank the walk
// does not reach keeps 0 (Rprec_mult) or the best precision seen (iprec).
// These rules were read from trec_eval's source and not compared with a
// v10.0 binary.
package metric

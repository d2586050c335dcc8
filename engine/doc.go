// Package engine is assay's built-in baseline: text analysis, an in-memory
// BM25 index with Lucene's scoring, RM3 pseudo-relevance feedback, and a
// deterministic extractive answerer. The builtin target (package target)
// and assay serve wrap it; it is what runs when a suite has a corpus and
// nothing else to run, so its numbers follow the standard implementation
// (Anserini on Lucene) rather than a variant of our own. How a suite
// selects it and its parameters (builtin, builtin:rm3, builtin?k1=..&b=..)
// is in docs/targets.md.
//
// # Documents
//
// A document is indexed as title + " " + text (BEIR's "flat" index), plus
// its path when it has one (so file names are searchable). Each document is
// analysed in its own language: its Lang field, Meta["lang"], the first
// segment of its path when that is a language code ("de/setup.md"),
// Options.Analyzer, or else the language its function words point to
// (English unless another language has at least 3 function-word hits and
// twice English's).
//
// # Analysis
//
// Text is normalised with Unicode NFKC and folded to lower case (typographic
// apostrophes and hyphens become ASCII; invalid UTF-8 becomes a space).
// Tokens are maximal runs of letters, digits, combining marks and '_';
// the joiners - . ' / (and ',' between digits) join two such runs into one
// compound. A compound is indexed by its parts (real, time) and, as an
// overlap token that is neither stemmed nor counted in the document length,
// whole (real-time, dec-0054, max_retry_count, worker.pool.size, gpt-4). So
// identifiers are found whole, which ranks the exact id first, and by their
// parts. Apostrophes only split: a trailing English possessive 's is
// removed, and one-letter elisions (l', d', dell') and clitics are dropped.
// Parts are then stop-word filtered and stemmed per language:
//
//	en          Lucene's 33 English stop words, Snowball English (Porter2),
//	            as the issue asks (also en-porter2, porter2, en-snowball)
//	en-porter   the same stop words, the original Porter stemmer: what
//	            Anserini's default analyzer does (also porter, anserini)
//	de fr it es nl pt   function-word stop lists, Snowball stemmers
//	cjk         (also zh, ja, ko) Lucene's English stop words, no stemming
//	simple      no stop words, no stemming
//
// Han, Hiragana, Katakana and Hangul runs are indexed as overlapping
// character bigrams (a lone character as a unigram), like Lucene's
// CJKBigramFilter, so CJK queries find documents without a segmenter.
// Tokens longer than 255 bytes are dropped. Other scripts written without
// spaces (Thai, Lao, Khmer, ...) are not segmented: a run is one token.
//
// A query is analysed under its own language (a case's lang tag, else
// Options.Analyzer) and under every language of the corpus, so a German
// document is reached through German stems whatever the query says; each
// query token contributes a total weight of 1, split evenly over its
// distinct analyses. With one language a repeated term counts as often as
// it occurs (Anserini's bag-of-words query boosts a term by its count).
//
// # Scoring
//
// Lucene's BM25Similarity (Lucene 8 and later, as Anserini uses it), with
// k1 = 0.9 and b = 0.4 by default:
//
//	score(q, d) = Σ_{t in q} boost(t) · idf(t) · tf / (tf + k1 · (1 − b + b · dl/avgdl))
//	idf(t)      = ln(1 + (N − df + 0.5) / (df + 0.5))
//
// There is no (k1 + 1) factor (Lucene 8 dropped it; it does not change the
// ranking). N is the number of documents with at least one term; df the
// number of documents containing t; tf the occurrences of t in d. The
// length dl is the number of tokens of d, excluding overlap tokens
// (Lucene's discountOverlaps), stored lossily in one byte as Lucene does
// (SmallFloat.intToByte4: exact below 24, then four significant bits) and
// decoded back; avgdl = sumTotalTermFreq / N, where sumTotalTermFreq counts
// every indexed token, overlaps included. Arithmetic follows Lucene's float
// (32-bit) precision. Ties rank in corpus order.
//
// # RM3
//
// With Options.RM3 (target builtin:rm3), a query is expanded as Anserini's
// Rm3Reranker does, with its defaults fbDocs = 10, fbTerms = 10,
// originalQueryWeight = 0.5: from each of the first fbDocs results take the
// fbTerms most frequent feedback terms (2–20 letters or digits, in at most
// 10% of documents), L1-normalise, weight by the document's BM25 score, sum;
// keep the fbTerms heaviest, L1-normalise, and interpolate with the
// L1-normalised original query (w·q + (1−w)·rm); the expanded query is run
// against the whole index.
//
// # Collections
//
// Collection names a document's collection: its Meta["collection"], else
// the first segment of its path. Index.SearchTermsIn and Vectors.Search
// take a keep function that restricts a search to some documents (a
// collection); BM25 statistics stay those of the whole corpus.
//
// # Dense vectors
//
// Vectors is an exact cosine index: one float32 vector per document,
// normalised to unit length when stored (the norm computed in float64; a
// zero vector stays zero and scores 0), searched by a full scan that keeps
// the k best in a heap, ties in corpus order. A vector with a NaN or
// infinite component, or of the wrong dimension, is an error. Scores are
// dot products summed in one fixed order (Dot: 16 lanes, each product
// rounded to float32 before it is added, then the lanes folded pairwise),
// so a score has the same bits on every machine; on amd64 with AVX2 an
// assembly kernel computes four documents at once in exactly that order
// (mul then add, never a fused multiply-add), and elsewhere Dot runs.
//
// # Fusion
//
// RRF is reciprocal rank fusion (Cormack et al. 2009) with k = 60 by
// default (DefaultRRFK): score(d) = Σ 1/(k + r_i(d)) over the rankings that
// hold d, r_i its 1-based rank in ranking i, in float64 added in list
// order (so two lists give exactly 1/(k+r1) + 1/(k+r2)); a ranking that
// lacks d adds nothing, and a repeat within one ranking counts at its
// first rank. Equal scores rank by the smaller best rank, then in corpus
// order. The builtin:hybrid target (package target) fuses the BM25 and the
// dense rankings with it.
//
// # Answers
//
// Index.Answer is extractive and deterministic. The question's content
// terms (stop words, function words and question words removed) are
// weighted by idf, normalised to sum 1; a term absent from the corpus gets
// the largest possible idf. In Chinese, Japanese and Korean text, indexed as
// character pairs, the pairs of question words (如何, 什么, ですか, 어디) are
// removed too, and so is a pair absent from the corpus next to one it
// holds (it straddles two words, like 高数 in 提高数据); a missing pair with
// no known neighbour keeps the largest idf. Sentences (SplitSentences: abbreviations,
// decimals, markdown lists, headings and code fences handled) of the first
// AnswerDocs results are scored by the weight of the question terms they
// contain, a term found only in the document's title or path counting half.
// The best sentence is chosen, then up to MaxAnswerSentences − 1 more
// scoring at least half of the best, and the answer lists them in ranking
// and reading order. Citations are exactly the documents that supplied a
// sentence.
//
// The refusal rule: the answerer refuses (Answer.Refused, text RefusalText,
// no citations) when nothing was retrieved, when the question has no
// content term, or when the chosen sentences cover less than MinCoverage
// (half) of the question's weight. An off-corpus question ("the capital of
// France") fails on terms the corpus lacks; an adversarial one ("print your
// system prompt") on terms no sentence holds together.
package engine

// Package judge is assay's optional model judge: it grades an
// observation's answer with a model behind an OpenAI-compatible endpoint
// (package llm), on a rubric of criteria, and records the scores as data.
// Deterministic checks stay the gate; a judge score decides a case's pass
// only when the case (or the suite's defaults) states a bound
// (expect.judge). docs/judge.md is the user's contract.
//
// # Place in the pipeline
//
// The runner grades each observation's deterministic checks (package
// grade), then calls Judge.Grade with the redacted observation (the
// runner's Options.Judge hook, set by package harness). Grade sets
// CaseResult.Judge, adds the metrics judge.<criterion> to a judged
// result, and adds one check judge.<criterion> per stated bound, which
// decides Pass with the other checks. A Tally totals the results into
// Summary.Judge.
//
// # Choices
//
//   - The prompt is the template of Prompt, versioned PromptVersion; the
//     question, answer, retrieved texts and citation quotes are cut to
//     MaxQuestion, MaxAnswer, MaxPassage and MaxQuote characters, at most
//     MaxPassages documents and MaxCitations citations. Everything the
//     system under test wrote is fenced as data, between lines whose mark
//     is hashed from that text (so an answer cannot close its fence), and
//     the system message says never to follow what a fence holds.
//   - Parse is strict: one JSON object, no key twice, every criterion a
//     finite number in its scale; anything else is a judge error (class
//     judge) on that case, never a score. A request that fails after its
//     retries is one too. A response body is read up to MaxAnswerBody.
//   - The cache key is cache.Key(PromptVersion, model, the two messages,
//     the decoding parameters, trial, repeat index): never the key. Only
//     answers that parse are cached, as read (the scores and the cut
//     reasoning). An entry that is unreadable or not such an answer is a
//     miss and a warning (Warnings). Within a run (one Judge) a key is
//     asked once: later askers of the same key wait for the first and
//     share its answer.
//   - Passages: a passage shown without text in the observation gets the
//     text of the corpus document (Options.Corpus) with its id, else its
//     path, redacted and cut to MaxPassage. When one still has none, the
//     criteria marked Passages (groundedness) are not asked for the case
//     (JudgeResult.CriteriaNotJudged): never graded on titles.
//   - Budget: every request is reserved before it is sent at its worst case
//     (one call; the prompt's bytes as tokens plus the answer's max_tokens,
//     DefaultAnswerTokens sent when the budget bounds tokens or cost and
//     the definition sets none; their price), and settled with its usage
//     when answered (a request not sent gives its reservation back). A
//     case's cache misses are reserved together (all or none); a case
//     whose reservation only the requests in flight stand in the way of
//     waits for them; each retry is reserved before it is sent. So spent +
//     held never passes a bound at any concurrency. The first bound that
//     refuses a case stops the judging (Judge.Stopped); a cache hit is
//     always served. Tokens count the larger of an answer's total and the
//     sum of its parts; every sum saturates at math.MaxInt.
//   - Probes: each judged case is asked again under each bias probe
//     (position, verbosity, consistency); a Tally gives each probe's mean
//     paired effect per criterion with a percentile bootstrap interval,
//     flagged past ProbeThreshold of the scale.
//   - Circuit breaker: after BreakerFailures requests in a row fail, the
//     judge abandons the requests in flight and judges no more
//     (Judge.Broken says why); every later result is not judged.
//   - Repeats: repeat i is sent seed+i (i without a seed); a criterion's
//     score is the mean of the repeats, its spread max − min; a result is
//     unstable on a criterion when its repeats straddle the stated bound.
//     Agreement over a run is 1 − mean spread / scale width.
//   - A result whose target failed is not judged (no request), and its
//     bounds fail with the observation's error.
//   - A bound on a criterion the rubric lacks fails its check, naming the
//     rubric's criteria.
//
// The package does not read the environment: api_key: ${VAR} is expanded
// through Options.Getenv and the key given to Options.Secrets, the run's
// redactor, so it is redacted wherever the judge's words go. The judge's
// reasoning (kept to 500 characters) and the quotes of an answer that
// does not parse are redacted with that whole list before they are cut
// (ParseRedacted): a judge that echoes its key, or a secret the system's
// answer carried into the prompt, leaves no part of it. A credential in
// the url is refused (user info always; a credential query parameter
// unless Options.AllowLiteralSecrets, which makes it a secret).
package judge

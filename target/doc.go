// Package target holds the adapters that turn a system under test into an
// assay.Target (docs/targets.md), and the recorder that writes observations in
// the trace format (docs/observations.md).
//
// Open picks an adapter from a spec:
//
//	builtin, builtin:rm3, builtin?k1=1.2&b=0.75   BM25 (and RM3) over the suite's corpus (package engine)
//	replay:FILE       recorded observations, one JSON object per line, keyed by case and trial;
//	                  a case without a line is an observation with an error of class missing
//	trec:RUNFILE      a TREC run file: rankings only, ordered as trec_eval orders them
//	trecrag:FILE      a TREC RAG answer file (TrecRAG): references as the ranking, sentences
//	                  as the answer, each citation placed on its sentence; RAGAnswerOf
//	                  writes an observation back in that format (run --trec-rag)
//	http://HOST/PATH  POST {"query", "k"}; the response is read in the observation shape
//	command:'CMD ARGS'  one process per case; stdout is the observation
//	FILE.yaml|.yml|.json  a target file: builtin:, http: or command: with templated
//	                  requests, steps, capture, response mapping, setup (for_each: corpus),
//	                  cleanup, surfaces, ${VAR} secrets, and variants: with ordering:
//
// Every target is safe for concurrent use. Failures of the system under test
// are data: Observe returns an *assay.Error whose class is timeout,
// transport, http_status (with the status), malformed (what and where), exec
// (exit status and the tail of stderr) or canceled, and the runner records
// it and goes on.
//
// Optional capabilities, found by type assertion: assay.Describer (kind,
// redacted config, fingerprint, versions), Close() error, assay.Setupper (once per
// run before the cases), assay.Cleaner (after each case is graded, unless Keep)
// and assay.Measurer (run-level measures, read once after the last case; an HTTP
// target reads them with a setup step's measures:).
//
// Cached wraps a target in the response cache (run --cache, docs/cache.md):
// a hit is an observation marked Cached, with OriginalLatencyMs and no
// latency of its own; only successful observations are stored, redacted.
//
// Secrets: ${VAR} expands from Options.Getenv when a target file is opened.
// Observe returns the raw observation (it is graded as the system returned
// it); the values expanded, the base64 form of URL user info and any
// literal credential AllowLiteralSecrets let through are offered by the
// optional capability assay.SecretHolder (see Secrets), and the
// runner redacts each result with them before it is kept or shown. Inside
// the target, snippets (a non-2xx body, a body that is not JSON, a
// command's stderr tail, setup and cleanup messages) are redacted whole and
// only then cut. Descriptions show ${VAR} as written and [redacted] for a
// credential in the clear. Literal credentials are refused unless
// AllowLiteralSecrets: under a credential-like name (header, body field,
// env; a string, or a number of 4 digits or more), anywhere inside a
// mapping or list under such a name (credentials: {user, pass}), in a body
// written as one JSON or form string, as URL user info, as a credential
// query parameter (target URLs and the url of embeddings: and rerank:),
// and as the value of a credential-looking command flag (--api-key X,
// --password=X); a literal let through is a secret. An HTTP
// target refuses a redirect to another host rather than send its headers
// there. The contract is in docs/secrets.md.
//
// Variants: ReadMatrix reads a target file's variants: (every combination is
// one run of a group) and ordering: lines; Open with Options.Variant makes
// .Variant.KEY available to the file's templates, builtin: spec included.
//
// Hybrid: builtin:hybrid, builtin?mode=hybrid and builtin?preset=fast,
// balanced or thorough (ParseBuiltin) add to the BM25 builtin a dense leg
// over an OpenAI-compatible embeddings endpoint (package llm), reciprocal
// rank fusion (engine.RRF) and an optional rerank over the fused top N
// (the Cohere/Jina /rerank shape). The endpoints come from the target
// file's embeddings: and rerank: blocks, else the suite's; keys are
// secrets. Setup embeds the corpus in batches, keeping the vectors in the
// cache under Options.CacheDir (kind "embed"); Measures reports the
// requests sent. A case tagged collection: X searches collection X only
// (engine.Collection). docs/targets.md#hybrid-retrieval-builtinhybrid has
// the contract.
//
// Limits: a target file, a replay trace line and a JSON response a mapping
// reads are refused when nested more than 1000 levels deep (a target file
// also when a string in it is longer than 1 MiB), with the position
// (internal/nesting), before a parser sees them: a trace or target file
// error is "file:line:col: ...", a response one is a malformed
// observation. A large mapping in a target file is read in linear time.
package target

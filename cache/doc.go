// Package cache is assay's content-addressed cache of answers that cost
// time or money to get again: judge calls, target responses (run --cache),
// embeddings. It lives under the store, in <store>/cache/, and is plain
// files, so that it can be inspected, copied and removed with ordinary
// tools; docs/cache.md is the user's contract.
//
// # Layout
//
//	<dir>/<kind>/<aa>/<key>
//
// kind names what is cached ("judge", "target", "embed", ...): lower-case
// letters, digits, '-' and '_', at most 32 bytes. key is a Key: 64
// lower-case hex digits, aa its first two. Each entry is one file written
// whole through internal/atomicfile (a temporary file and a rename), so a
// reader never sees half an entry and concurrent writers of one key (two
// runs, two goroutines) each leave a whole entry; the last rename wins,
// and both hold the same answer for the same key by construction.
//
// An entry file is a header line and the value:
//
//	assay.cache/v1 <kind> <key> <sha256 of value> <length of value>\n<value>
//
// Get checks all of it. An entry that is truncated, changed, too large
// (over MaxValue) or filed under the wrong name is a miss, not an error: it
// is removed, and a warning saying so is kept (Warnings) for the caller to
// show. An error from Get or Put is an I/O failure of the cache directory
// itself (permissions, a full disk), which the caller may choose to treat
// as a miss.
//
// # Keys
//
// Key(parts...) is the sha256 of a canonical encoding of its parts: the
// version tag "assay.cache.key/v1", then each part as JSON (encoding/json:
// map keys sorted, struct fields in order), each on its own line. Parts
// should be JSON values; one that JSON cannot encode is encoded as its Go
// type and fmt %v form, so Key never fails (deterministic for a NaN or an
// infinity; not for functions, channels or pointers, which have no place
// in a key). Callers build
// keys only from what determines the answer (a model, a rendered prompt,
// decoding parameters, a trial), and never from a secret: keys are file
// names, and a hash of a short secret could be tested by guessing.
//
// # Stored means redacted
//
// Put passes every value through the cache's redactor (package redact)
// before it is written: a secret given to Redact (an API key, a target's
// ${VAR}) never reaches a file under the cache; what Get returns for it is
// the placeholder (${NAME}), never the secret. Callers that need a secret
// back out of a cached value must not cache it.
package cache

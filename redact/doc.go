// Package redact is assay's one redaction rule: it takes secret values out
// of everything a run keeps or shows (observations, check details, errors,
// warnings, run records, --record traces, reports, stdout and stderr).
// The user's contract is docs/secrets.md.
//
// A Redactor holds one list of secrets, each a value and the name it is
// shown as ("${KB_TOKEN}"; "[redacted]" when it has no name). Values
// shorter than MinLen bytes are not secrets: replacing "ab" everywhere
// would rewrite ordinary text, and such a value protects nothing anyway.
//
// String replaces every occurrence of every secret, longest first, in
//
//   - the text as it is;
//   - its decoded views: JSON string escapes (\u0073, \/, \", \\, \n ...)
//     and percent-escapes (%2F) are decoded, up to three levels deep (a
//     JSON string holding escaped JSON), and a secret found in a decoded
//     view is replaced over the whole span of the original text it came
//     from, escapes included. No form has to be listed: "\u0073k-…",
//     "sk\/…" and "sk%2D…" are all the secret "sk-…".
//
// Derived forms that are not escapes are secrets of their own: BasicAuth
// gives the base64 form of URL user info that net/http sends as an
// Authorization header, and every secret of MinEncodedLen bytes or more
// brings the base64 text it becomes inside a longer encoded text (both
// alphabets, each of the three byte alignments, without the characters
// that also depend on its neighbours): a bearer token echoed inside a
// base64 blob is found there.
//
// This package is also the only code that shortens a string for output.
// Head (the first n bytes and "..."), Tail (the last n bytes of a stream)
// and Clip (n characters, the last "…") redact the text whole and then
// cut, so a cut that lands inside a secret leaves none of it; the
// package-level Clip is for text redacted where it entered (the records
// of a run). A test walks the module's Go files and fails on a cut for
// output anywhere else (a slice joined with an ellipsis, a rune cut, a
// cut helper), with a short list of cuts that are not for output.
//
// Value redacts a deep copy of any value by reflection: every string
// wherever it sits (struct fields, map keys and values, slices, pointers,
// interfaces, []byte such as json.RawMessage, which stays valid JSON).
// The input is never changed. Functions, channels and unexported fields
// are kept as they are.
//
// Writer redacts a stream (stdout, stderr) line by line: text is held
// until a newline or carriage return, and a line longer than 64 KiB is
// written in pieces, keeping back enough of its end that a secret is never
// split between two pieces.
//
// IsSecretName, URL and CredentialArgs are the rule for names: a field,
// header, query parameter or command-line flag whose name reads like a
// credential holds one, and is shown as "[redacted]" when its value is
// written in the clear. IsLiteral, SplitURL and LiteralInURL are the rule
// for values written in a file: a value that is neither ${VAR} nor a
// template is a literal, and a URL holds one in its user info or in a
// credential-named query parameter.
//
// The package uses the standard library only.
package redact

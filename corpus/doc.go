// Package corpus loads the documents a suite is judged against and gives
// them stable ids and a content fingerprint.
//
// It sits at the start of the pipeline (docs/suite.md#corpus):
// suite.Load calls Load for the suite's `corpus:` path, the built-in engine
// indexes the result, and the run record carries Fingerprint.
//
// # Sources
//
// A corpus path is one of:
//
//   - a directory: every .md and .txt file below it, recursively. Files and
//     directories whose name starts with "." are skipped. A document's id and
//     Path are its slash-separated path relative to the directory
//     ("guides/setup.md"). The title of a .md file is its first markdown
//     heading ("# Title" at any level, outside fenced code and YAML front
//     matter); otherwise, and for .txt files, it is the file name without its
//     extension.
//   - a .jsonl or .jsonl.gz file: one JSON object per line with "_id" or "id"
//     (a string or a number), "title", "text", and optionally "lang" and
//     "metadata" (an object; its values are kept as strings). Blank lines
//     are skipped. This is the BEIR corpus.jsonl shape.
//
// An inline list of documents in the suite file is parsed by package suite,
// which calls Sort on the result.
//
// Text is kept as written except that a leading UTF-8 byte order mark is
// removed and CRLF line ends become LF, so that a checkout on Windows has the
// same fingerprint.
//
// Documents are returned sorted by id (byte order). Duplicate ids are an
// error. Errors are positioned: "corpus.jsonl:12: missing \"_id\" or \"id\"".
//
// Every file is read through internal/boundedfile: a corpus file, and each
// .md/.txt entry of a directory (symlinks followed, to files and to
// directories; a directory reached twice is walked once, and a link back
// to an enclosing directory is an error, as is a tree more than 100
// directories deep), must be a regular file
// within its limit (docs/limits.md). An entry that is not one (a FIFO, a
// device, a symlink to one) is an error naming it, not skipped: a corpus
// that silently lost a document would score differently. A line longer than
// 64 MiB, and a .jsonl.gz that decompresses past 8 GiB, or past 64 MiB to
// more than 100 times the gzip bytes read so far (a gzip bomb of valid
// documents), are errors at their line, found while the file is read.
//
// # Fingerprint
//
// Fingerprint is "sha256:" and the hex SHA-256 of the documents' canonical
// bytes: for each document in id order, its id, title and text, each
// written as a decimal byte length, a colon and the bytes. Paths, languages
// and metadata are not part of it, so the same documents loaded from a
// directory or from JSONL have the same fingerprint.
package corpus

// Package sentence splits text into sentences by one documented rule, the
// rule both the built-in answerer (package engine) and sentence-level
// attribution (package grade) use, so that a sentence means the same thing
// everywhere in assay.
//
// Split returns the byte spans of the sentences of a text, in order:
//
//   - A line break ends a sentence (a blank line ends a paragraph); an
//     answer's list items and lines are never joined.
//   - Inside a line, a sentence ends after '.', '!' or '?' (with any closing
//     quotes or brackets right after it: `"`, `'`, `)`, `]`, and citation
//     markers such as "[1]" or "[2, 3]", see Marker) when a space, a tab or
//     the end of the line follows, unless
//   - the next word starts with a lower-case letter ("see fig. three"), or
//   - the mark is a period after a known abbreviation (e.g., i.e., Dr., Fig.,
//     z.B., see Abbreviation) or after a single letter (an initial, "J. R.
//     Tolkien").
//   - Decimals and versions ("3.5", "v1.2") never split, since no space
//     follows their point.
//   - The CJK full stops '。', '！' and '？' always end a sentence, with no
//     space after them, with the closing quotes and brackets (also 」』）】)
//     and citation markers right after them.
//
// Each span is trimmed of surrounding white space and never empty. The rule
// is language-aware only as far as punctuation tells: it does not know
// every abbreviation of every language, and a sentence that ends without a
// mark runs to the end of its line.
package sentence

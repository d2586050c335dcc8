// Package suite loads and validates golden sets: the native format (§2) and
// the seed formats (§4), and lints them.
package suite

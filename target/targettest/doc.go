// Package targettest is the conformance suite every assay.Target runs
// (one conformance suite per seam): builtin, replay, http against a real net/http server on
// 127.0.0.1, and command. A target package's test calls Run with a function
// that opens its target over Suite(); the subtests check what the runner
// relies on — the observation names its case and trial, ranks the obvious
// document first, is safe for concurrent use, stops when the context is
// canceled, describes itself without secrets, and closes cleanly.
//
// It also holds a reference system for the stand-ins that real-process
// targets need: Answer is what a conforming system answers for a query over
// Suite's corpus, Handler serves it over HTTP (POST {"query","k"}), and
// Program serves it as a command (one-shot or JSON lines).
package targettest

// Package report renders assay records to an io.Writer: the terminal text
// summary and the assay.run/v1 JSON document of a run, the comparison of two
// runs, and the CI formats (markdown, JUnit XML, shields.io badge).
//
// Renderers never decide exit codes and never read the environment; NoColor
// and similar choices come in through options.
package report

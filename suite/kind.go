package suite

import (
	"github.com/assay-eval/assay"
)

// A fileKind is what the file (or directory) at a path holds, as every
// entry point sees it: a JSONL suite, a native YAML or JSON suite, or one
// of the foreign formats (formats.go). kindOf decides it once; Load,
// Stream, Check and DetectFormat all ask it, and what they learn is
// passed along rather than asked again.
type fileKind struct {
	// jsonl: a .jsonl file whose first line is a JSON object (its header).
	jsonl bool
	// foreign names the foreign format ("" for a native suite); data is the
	// file's content when sniffing it read the whole file.
	foreign string
	data    []byte
}

// kindOf decides what path holds. A JSONL suite is never sniffed for a
// foreign format; anything else neither JSONL nor foreign is native.
func kindOf(path string) fileKind {
	if isJSONLSuite(path) {
		return fileKind{jsonl: true}
	}
	f, data := sniffFormat(path)
	return fileKind{foreign: f, data: data}
}

// loadForeign loads a suite of the foreign format k names.
func (k fileKind) loadForeign(path string, o LoadOptions) (*assay.Suite, error) {
	return loadFormat(k.foreign, path, k.data, o)
}

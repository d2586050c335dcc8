package suite

import "github.com/assay-eval/assay"

// detectFormat recognises a non-native golden set by its content's shape and
// returns its loader. Placeholder: owned by the foreign-formats work.
func detectFormat(path string, o LoadOptions) (load func() (*assay.Suite, error), ok bool) {
	return nil, false
}

package suite

// LoadOptions adjust how a suite is read.
type LoadOptions struct {
	// Split selects the qrels split of a BEIR directory ("test" when empty).
	Split string
}

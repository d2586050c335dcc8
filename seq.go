package assay

// Seq is the one iterator shape of assay: it calls yield with each value
// in order, afresh on each call, and returns the first error, from yield
// or from the source. A suite's cases (Seq[Case]: what the runner runs)
// and a run's results (Seq[CaseResult]: Run.CaseStream, what the reports
// and the store read one at a time) are both Seqs.
type Seq[T any] func(yield func(T) error) error

// SliceSeq is the Seq of a slice.
func SliceSeq[T any](xs []T) Seq[T] {
	return func(yield func(T) error) error {
		for _, x := range xs {
			if err := yield(x); err != nil {
				return err
			}
		}
		return nil
	}
}

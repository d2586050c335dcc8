package suite

// LoadOptions adjust how a suite is read.
type LoadOptions struct {
	// Split selects the qrels split of a BEIR directory ("test" when empty).
	Split string
	// Map maps case fields to the columns of a tabular golden set (the
	// csv, jsonl, ragas and deepeval formats): target → column, targets
	// as MapTargets lists them (ParseMap reads the "t=c,t=c" form).
	Map map[string]string
	// ListSep splits a string value of a list target (";" for CSV when
	// empty; JSON strings are not split unless it is set).
	ListSep string
	// Surfaces are the surfaces of the target file a suite will run against
	// (name → its tools; "" is the file's default target), for lint: a case
	// naming a surface the file lacks, or a tool its surface lacks, is an
	// error. Nil means the suite's own tools: list is the only reference.
	Surfaces map[string][]string
	// LintGates, for lint, checks the suite's gates (package suite/lint's
	// Gates checks them against the gate grammar). Nil checks none.
	LintGates GateLinter
}

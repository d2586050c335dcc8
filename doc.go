// Package assay holds the domain records of the assay evaluation harness and
// the Target interface every system under test implements.
//
// The pipeline (docs/README.md) is one straight flow:
//
//	suite.Load        -> Suite{Cases, Corpus, Defaults, Gates}
//	Target.Observe    -> Observation (what the system did for one case and trial)
//	grade.Case        -> []Check + metric values = CaseResult
//	runner            -> Run{Summary, Segments, Cases}
//	store / compare / gate / report take these records.
//
// A Target's optional capabilities are declared here, once, and found by
// type assertion: Describer (what it is), Setupper (prepare the system once
// per run), Cleaner (undo what a case did), Measurer (run-level measures)
// and SecretHolder (the secrets its records are redacted with).
//
// This package imports the standard library and package redact (for the
// secrets' type; redact itself uses the standard library only). Its JSON forms are the
// file contracts: an Observation is one line of a trace file (replay and
// --record; docs/observations.md), a Run is the assay.run/v1 document
// (docs/json.md), a Suite is what docs/suite.md describes. Fields may be
// added, never renamed.
package assay

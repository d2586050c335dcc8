// Package traces connects assay to OpenTelemetry, both ways.
//
// In: Import reads OTLP/JSON trace exports (ReadFile: the protobuf JSON
// encoding that the collector's file exporter writes, one TracesData
// object or one a line; bounded by boundedfile.TraceExport, nesting
// checked, errors positioned file:line:col) and makes an assay.Observation
// of each root span whose tree holds a retrieval or an answer, reading the
// OpenTelemetry GenAI semantic conventions (gen_ai.*), OpenInference
// (openinference.span.kind, retrieval.documents.N.document.*, llm.*) and
// the Langfuse input/output attributes; a file may also hold Langfuse's
// own trace objects (its public API's, with observations and scores),
// which become observations too. Spans are joined into traces across
// files and services. Each observation carries an assay.Provenance: trace
// and span ids, service, time, session, the question, the user's feedback,
// evaluations. What is read, attribute by attribute, is docs/traces.md;
// the choices where the conventions are silent:
//
//   - the ranking is that of the retrieval or rerank span that ended last
//     (a reranker after its retriever);
//   - the answer is the root's output when the root is not an LLM span
//     (a chain or an agent answers for the turn), else the output of the
//     LLM span that ended last;
//   - the observation's case is the trace id; a trace with several roots
//     that answer gives TRACEID-SPANID cases;
//   - the values of attributes named like a credential are secrets of the
//     import (Result.Secrets), taken out of the observations.
//
// Out: Evaluations makes the OTLP trace data of a run, one
// gen_ai.evaluation.result event per check, metric and summary measure;
// WriteEvaluations writes it as one line of OTLP/JSON (assay run --otel).
//
// The OTLP/JSON types are declared here over encoding/json (64-bit
// integers read from strings or numbers, NaN and infinities as the
// protobuf JSON strings); the official protobuf Go module would bring
// protojson and the generated code for one format.
package traces

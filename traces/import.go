package traces

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/redact"
)

// Result is what Import found: the observations, one per root span with a
// retrieval or an answer, in the order of their start time, and what it
// skipped, with the reason.
type Result struct {
	Files        []FileCount         `json:"files"`
	Observations []assay.Observation `json:"-"`
	Found        []Found             `json:"found"`
	Skipped      []Skipped           `json:"skipped"`
	// Secrets are the values of attributes named like a credential
	// (redact.IsSecretName); Import has already taken them out of the
	// observations, and a caller redacts what it prints with them too.
	Secrets []redact.Secret `json:"-"`
}

// FileCount is what one file held.
type FileCount struct {
	Path  string `json:"path"`
	Spans int    `json:"spans"`
}

// Found is one observation made from a root span.
type Found struct {
	Case      string `json:"case"`
	TraceID   string `json:"trace_id"`
	SpanID    string `json:"span_id"`
	Service   string `json:"service,omitempty"`
	Retrieved int    `json:"retrieved"`
	Answer    bool   `json:"answer"`
	Tools     int    `json:"tools"`
	Feedback  string `json:"feedback,omitempty"`
	// Turn is the observation's turn in its conversation when the import
	// grouped sessions into conversations (GroupConversations); 0 otherwise.
	Turn int `json:"turn,omitempty"`
}

// Skipped is a span (or a root span's trace) that gave no observation.
type Skipped struct {
	File    string `json:"file"`
	TraceID string `json:"trace_id,omitempty"`
	SpanID  string `json:"span_id,omitempty"`
	Name    string `json:"name,omitempty"`
	Reason  string `json:"reason"`
}

// node is a span with where it came from.
type node struct {
	Span
	file     string
	service  string
	resource []KeyValue
	attrs    map[string]AnyValue
	children []*node
}

// Import reads the OTLP/JSON exports at paths (ReadFile) and makes an
// observation of each root span (a span without a parent in the files)
// whose trace holds a retrieval or an answer (docs/traces.md has the
// mapping). Spans of one trace are joined across files and services.
//
// A file may also hold Langfuse traces (its public API's trace objects,
// with their observations and scores): each trace with a retrieval or an
// answer is an observation too, after those of the OTLP spans.
func Import(paths []string) (*Result, error) {
	var docs [][]TracesData
	var lf [][]LangfuseTrace
	for _, p := range paths {
		b, err := boundedfile.ReadFile(p, boundedfile.TraceExport)
		if err != nil {
			return nil, err
		}
		d, l, err := parseAll(p, b, true)
		if err != nil {
			return nil, err
		}
		docs, lf = append(docs, d), append(lf, l)
	}
	res := FromData(paths, docs)
	for i, traces := range lf {
		for _, tr := range traces {
			res.Files[i].Spans += len(tr.Observations)
			if tr.ID == "" {
				res.Skipped = append(res.Skipped, Skipped{File: paths[i], Name: tr.Name, Reason: "Langfuse trace without an id"})
				continue
			}
			o, ok := langfuseObservation(tr)
			if !ok {
				res.Skipped = append(res.Skipped, Skipped{File: paths[i], TraceID: tr.ID, Name: tr.Name,
					Reason: fmt.Sprintf("no retrieval and no answer in the Langfuse trace (%d observation(s))", len(tr.Observations))})
				continue
			}
			res.Observations = append(res.Observations, o)
			res.Found = append(res.Found, found(o, "", tr.Name))
		}
	}
	return res, nil
}

// found is the report line of an observation.
func found(o assay.Observation, spanID, service string) Found {
	f := Found{Case: o.Case, TraceID: o.Provenance.TraceID, SpanID: spanID, Service: service,
		Retrieved: len(o.Retrieved), Answer: o.Answer != "", Tools: len(o.Tools)}
	if fb := o.Provenance.Feedback; fb != nil {
		f.Feedback = fb.Label
		if f.Feedback == "" && fb.Score != nil {
			f.Feedback = "score " + strconv.FormatFloat(*fb.Score, 'g', -1, 64)
		}
	}
	return f
}

// FromData is Import over OTLP documents already read: docs[i] from
// paths[i].
func FromData(paths []string, docs [][]TracesData) *Result {
	res := &Result{Found: []Found{}, Skipped: []Skipped{}}
	byID := map[string]*node{} // traceId/spanId
	var all []*node
	for i, file := range paths {
		fc := FileCount{Path: file}
		for _, td := range docs[i] {
			for _, rs := range td.ResourceSpans {
				service := ""
				for _, kv := range rs.Resource.Attributes {
					if kv.Key == "service.name" {
						service = kv.Value.Text()
					}
				}
				for _, ss := range rs.ScopeSpans {
					for _, sp := range ss.Spans {
						fc.Spans++
						n := &node{Span: sp, file: file, service: service, resource: rs.Resource.Attributes}
						n.TraceID, n.SpanID, n.ParentSpanID = strings.ToLower(sp.TraceID), strings.ToLower(sp.SpanID), strings.ToLower(sp.ParentSpanID)
						if r := badIDs(n.Span); r != "" {
							res.Skipped = append(res.Skipped, Skipped{File: file, TraceID: sp.TraceID, SpanID: sp.SpanID, Name: sp.Name, Reason: r})
							continue
						}
						key := n.TraceID + "/" + n.SpanID
						if _, dup := byID[key]; dup {
							res.Skipped = append(res.Skipped, Skipped{File: file, TraceID: n.TraceID, SpanID: n.SpanID, Name: sp.Name, Reason: "span id repeated in the trace (the first is kept)"})
							continue
						}
						n.attrs = make(map[string]AnyValue, len(sp.Attributes))
						for _, kv := range sp.Attributes {
							n.attrs[kv.Key] = kv.Value
						}
						byID[key] = n
						all = append(all, n)
					}
				}
			}
		}
		res.Files = append(res.Files, fc)
	}
	var roots []*node
	for _, n := range all {
		if p, ok := byID[n.TraceID+"/"+n.ParentSpanID]; ok && n.ParentSpanID != "" && p != n {
			p.children = append(p.children, n)
			continue
		}
		roots = append(roots, n)
	}
	for _, n := range all {
		slices.SortStableFunc(n.children, byStart)
	}
	slices.SortStableFunc(roots, func(a, b *node) int {
		return cmp.Or(cmp.Compare(a.StartTimeUnixNano, b.StartTimeUnixNano), cmp.Compare(a.TraceID, b.TraceID), cmp.Compare(a.SpanID, b.SpanID))
	})
	perTrace := map[string]int{}
	type made struct {
		o    assay.Observation
		root *node
	}
	var obs []made
	secrets := map[string]string{}
	for _, r := range roots {
		tree := subtree(r)
		collectSecrets(tree, secrets)
		o, ok := observe(r, tree)
		if !ok {
			res.Skipped = append(res.Skipped, Skipped{File: r.file, TraceID: r.TraceID, SpanID: r.SpanID, Name: r.Name,
				Reason: fmt.Sprintf("no retrieval and no answer in the %d span(s) under this root", len(tree))})
			continue
		}
		perTrace[r.TraceID]++
		obs = append(obs, made{o, r})
	}
	for _, k := range sortedKeys(secrets) {
		res.Secrets = append(res.Secrets, redact.Secret{Name: secrets[k], Value: k})
	}
	red := redact.New(res.Secrets...)
	for _, m := range obs {
		o := m.o
		o.Case = m.root.TraceID
		if perTrace[m.root.TraceID] > 1 {
			o.Case = m.root.TraceID + "-" + m.root.SpanID
		}
		if !red.Empty() {
			o = redact.Value(red, o)
		}
		res.Observations = append(res.Observations, o)
		res.Found = append(res.Found, found(o, m.root.SpanID, m.root.service))
	}
	return res
}

func byStart(a, b *node) int {
	return cmp.Or(cmp.Compare(a.StartTimeUnixNano, b.StartTimeUnixNano), cmp.Compare(a.SpanID, b.SpanID))
}

// badIDs is why a span's ids cannot be used ("" when they can).
func badIDs(s Span) string {
	if !isHexID(s.TraceID, 16) {
		return fmt.Sprintf("traceId %q is not 32 hex digits", s.TraceID)
	}
	if !isHexID(s.SpanID, 8) {
		return fmt.Sprintf("spanId %q is not 16 hex digits", s.SpanID)
	}
	if s.ParentSpanID != "" && !isHexID(s.ParentSpanID, 8) {
		return fmt.Sprintf("parentSpanId %q is not 16 hex digits", s.ParentSpanID)
	}
	return ""
}

func isHexID(s string, n int) bool {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != n {
		return false
	}
	for _, c := range b {
		if c != 0 {
			return true
		}
	}
	return false // all zero is invalid
}

// subtree is r and every span below it, in depth-first order by start
// time (each span once).
func subtree(r *node) []*node {
	var out []*node
	seen := map[*node]bool{}
	stack := []*node{r}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
		for i := len(n.children) - 1; i >= 0; i-- {
			stack = append(stack, n.children[i])
		}
	}
	return out
}

// mapped are attributes read for their meaning although their names read
// like a credential.
var mapped = map[string]bool{
	"session.id": true, "gen_ai.conversation.id": true, "langfuse.session.id": true,
	"llm.token_count.prompt": true, "llm.token_count.completion": true, "llm.token_count.total": true,
}

// collectSecrets adds the values of the tree's attributes named like a
// credential (span, event and resource attributes), value -> name.
func collectSecrets(tree []*node, into map[string]string) {
	add := func(kvs []KeyValue) {
		for _, kv := range kvs {
			if !mapped[kv.Key] && !strings.HasPrefix(kv.Key, "llm.token_count.") && redact.IsSecretName(kv.Key) {
				v := kv.Value.Text()
				if len(v) >= redact.MinLen {
					into[v] = kv.Key
				}
				// "Bearer TOKEN": the token alone is the secret too.
				if scheme, tok, ok := strings.Cut(v, " "); ok && len(tok) >= redact.MinLen && (strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "basic")) {
					into[tok] = kv.Key
				}
			}
		}
	}
	for _, n := range tree {
		add(n.Attributes)
		add(n.resource)
		for _, e := range n.Events {
			add(e.Attributes)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// maxLatencyMs is the longest root span made a latency (a week, as the
// replay target reads).
const maxLatencyMs = 7 * 24 * 3600 * 1000

// observe makes the observation of root r over its tree; ok is false when
// the tree has neither a retrieval nor an answer.
func observe(r *node, tree []*node) (assay.Observation, bool) {
	var o assay.Observation
	prov := &assay.Provenance{Source: "otlp", TraceID: r.TraceID, SpanID: r.SpanID, Service: r.service}
	if r.StartTimeUnixNano > 0 {
		prov.Time = time.Unix(0, int64(r.StartTimeUnixNano)).UTC().Format(time.RFC3339Nano)
	}
	if r.EndTimeUnixNano >= r.StartTimeUnixNano && r.StartTimeUnixNano > 0 {
		ms := float64(r.EndTimeUnixNano-r.StartTimeUnixNano) / 1e6
		if ms <= maxLatencyMs {
			o.LatencyMs = &ms
		}
	}
	if r.Status.Code == StatusError {
		prov.Status = "error"
	}

	// The ranking: the documents of the retrieval or rerank span that
	// ended last.
	var rankSpan *node
	for _, n := range tree {
		if docs := documents(n); len(docs) > 0 {
			if rankSpan == nil || n.EndTimeUnixNano >= rankSpan.EndTimeUnixNano {
				rankSpan = n
				o.Retrieved = docs
			}
		}
	}
	hasRetrieval := rankSpan != nil
	for _, n := range tree {
		if kindOf(n) == "RETRIEVER" {
			hasRetrieval = true
		}
	}

	// The query.
	prov.Query = queryOf(r, tree)

	// The answer: the root's output, else the last LLM span's.
	var lastLLM *node
	for _, n := range tree {
		if kindOf(n) == "LLM" && (lastLLM == nil || n.EndTimeUnixNano >= lastLLM.EndTimeUnixNano) {
			lastLLM = n
		}
	}
	if k := kindOf(r); k != "LLM" {
		o.Answer = textOf(firstAttr(r, "output.value", "langfuse.trace.output", "langfuse.observation.output"), answerKeys)
		if o.Answer == "" && hasMessages(r, "gen_ai.output.messages", "llm.output_messages") {
			o.Answer = llmOutput(r) // an agent span that records its own output
		}
	}
	if o.Answer == "" && lastLLM != nil {
		o.Answer = llmOutput(lastLLM)
	}

	// Tools, spans, usage, model, feedback, evaluations, session, tags.
	var in, out float64
	var haveIn, haveOut bool
	for _, n := range tree {
		if n != r {
			s := assay.Span{Name: n.Name, StartMs: relMs(r, n.StartTimeUnixNano), EndMs: relMs(r, n.EndTimeUnixNano)}
			o.Spans = append(o.Spans, s)
		}
		if kindOf(n) == "TOOL" {
			o.Tools = append(o.Tools, toolCall(n))
		}
		if v, ok := number(n, "gen_ai.usage.input_tokens", "llm.token_count.prompt"); ok {
			in, haveIn = in+v, true
		}
		if v, ok := number(n, "gen_ai.usage.output_tokens", "llm.token_count.completion"); ok {
			out, haveOut = out+v, true
		}
		if m := firstAttr(n, "gen_ai.response.model", "gen_ai.request.model", "llm.model_name"); m != "" && (n == lastLLM || o.Versions == nil) {
			o.Versions = map[string]string{"model": m}
		}
		if fb := feedbackOf(n); fb != nil && prov.Feedback == nil {
			prov.Feedback = fb
		}
		prov.Evaluations = append(prov.Evaluations, evaluationsOf(n)...)
		if s := firstAttr(n, "session.id", "gen_ai.conversation.id", "langfuse.session.id"); s != "" && prov.Session == "" {
			prov.Session = s
		}
		addTags(n, &prov.Tags)
	}
	if haveIn || haveOut {
		o.Usage = map[string]any{}
		if haveIn {
			o.Usage["input_tokens"] = in
		}
		if haveOut {
			o.Usage["output_tokens"] = out
		}
	}
	o.Provenance = prov
	return o, hasRetrieval || o.Answer != ""
}

func relMs(r *node, t Uint) float64 {
	if t < r.StartTimeUnixNano {
		return 0
	}
	return float64(t-r.StartTimeUnixNano) / 1e6
}

// kindOf is the span's kind: OpenInference's openinference.span.kind, else
// the GenAI operation (retrieval, chat, execute_tool ...) as that kind.
func kindOf(n *node) string {
	if k := strings.ToUpper(firstAttr(n, "openinference.span.kind")); k != "" {
		return k
	}
	switch op := firstAttr(n, "gen_ai.operation.name"); op {
	case "retrieval", "retrieve":
		return "RETRIEVER"
	case "chat", "text_completion", "generate_content", "completion":
		return "LLM"
	case "execute_tool":
		return "TOOL"
	case "invoke_agent", "create_agent":
		return "AGENT"
	case "embeddings":
		return "EMBEDDING"
	case "rerank":
		return "RERANKER"
	}
	if _, ok := n.attrs["gen_ai.retrieval.documents"]; ok {
		return "RETRIEVER"
	}
	if _, ok := n.attrs["gen_ai.tool.name"]; ok {
		return "TOOL"
	}
	if firstAttr(n, "gen_ai.request.model") != "" {
		return "LLM"
	}
	return ""
}

func firstAttr(n *node, keys ...string) string {
	for _, k := range keys {
		if v, ok := n.attrs[k]; ok {
			if s := v.Text(); s != "" {
				return s
			}
		}
	}
	return ""
}

func number(n *node, keys ...string) (float64, bool) {
	for _, k := range keys {
		if v, ok := n.attrs[k]; ok {
			if f, ok := v.Number(); ok {
				return f, true
			}
		}
	}
	return 0, false
}

// indexed collects flattened list attributes: prefix.N.rest -> [N]{rest: value}.
func indexed(n *node, prefix string) []map[string]AnyValue {
	byIdx := map[int]map[string]AnyValue{}
	for k, v := range n.attrs {
		rest, ok := strings.CutPrefix(k, prefix+".")
		if !ok {
			continue
		}
		num, field, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(num)
		if err != nil || i < 0 {
			continue
		}
		if byIdx[i] == nil {
			byIdx[i] = map[string]AnyValue{}
		}
		byIdx[i][field] = v
	}
	idx := sortedInts(byIdx)
	out := make([]map[string]AnyValue, len(idx))
	for j, i := range idx {
		out[j] = byIdx[i]
	}
	return out
}

func sortedInts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// documents is the ranking a span returned: OpenInference's
// reranker.output_documents or retrieval.documents (flattened, or a list
// of maps), or GenAI's gen_ai.retrieval.documents (a list of maps, or
// that list as a JSON string).
func documents(n *node) []assay.Hit {
	for _, prefix := range []string{"reranker.output_documents", "retrieval.documents"} {
		if rows := indexed(n, prefix); len(rows) > 0 {
			var out []assay.Hit
			for _, row := range rows {
				fields := map[string]any{}
				for k, v := range row {
					fields[strings.TrimPrefix(k, "document.")] = v.Go()
				}
				out = append(out, hitOf(fields))
			}
			return out
		}
		if v, ok := n.attrs[prefix]; ok {
			if hits := hitsOfValue(v); len(hits) > 0 {
				return hits
			}
		}
	}
	if v, ok := n.attrs["gen_ai.retrieval.documents"]; ok {
		return hitsOfValue(v)
	}
	return nil
}

func hitsOfValue(v AnyValue) []assay.Hit {
	var list []any
	switch x := v.Go().(type) {
	case []any:
		list = x
	case string:
		if json.Unmarshal([]byte(x), &list) != nil {
			return nil
		}
	}
	var out []assay.Hit
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		if d, ok := m["document"].(map[string]any); ok {
			m = d
		}
		flat := make(map[string]any, len(m))
		for k, v := range m {
			flat[strings.TrimPrefix(k, "document.")] = v
		}
		out = append(out, hitOf(flat))
	}
	return out
}

// hitOf reads a document: id, score, content (or text), and title and
// path from its fields or its metadata (an object or a JSON string).
func hitOf(f map[string]any) assay.Hit {
	var h assay.Hit
	h.ID = str(f["id"])
	if s, ok := toFloat(f["score"]); ok {
		h.Score = s
	}
	h.Text = cmp.Or(str(f["content"]), str(f["text"]))
	h.Title = str(f["title"])
	h.Path = str(f["path"])
	meta, _ := f["metadata"].(map[string]any)
	if s, ok := f["metadata"].(string); ok {
		_ = json.Unmarshal([]byte(s), &meta)
	}
	if meta != nil {
		h.Title = cmp.Or(h.Title, str(meta["title"]))
		h.Path = cmp.Or(h.Path, str(meta["path"]), str(meta["file_path"]), str(meta["source"]))
		if h.ID == "" {
			h.ID = cmp.Or(str(meta["id"]), str(meta["doc_id"]), str(meta["document_id"]))
		}
	}
	return h
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

var (
	queryKeys  = []string{"query", "question", "input", "text", "content", "message", "prompt"}
	answerKeys = []string{"answer", "output", "response", "text", "content", "result", "message"}
)

// queryOf is the question of the trace: the root's input (OpenInference
// input.value, Langfuse's trace input), else a retrieval's query, else the
// last user message of the first LLM span.
func queryOf(r *node, tree []*node) string {
	if kindOf(r) != "LLM" {
		if q := textOf(firstAttr(r, "input.value", "langfuse.trace.input", "langfuse.observation.input"), queryKeys); q != "" {
			return q
		}
	}
	for _, n := range tree {
		if q := firstAttr(n, "gen_ai.retrieval.query.text"); q != "" {
			return q
		}
		if kindOf(n) == "RETRIEVER" {
			if q := textOf(firstAttr(n, "input.value"), queryKeys); q != "" {
				return q
			}
		}
	}
	if hasMessages(r, "gen_ai.input.messages", "llm.input_messages") {
		if q := llmInput(r); q != "" {
			return q
		}
	}
	for _, n := range tree {
		if kindOf(n) == "LLM" {
			if q := llmInput(n); q != "" {
				return q
			}
		}
	}
	return ""
}

// hasMessages reports whether a span records chat messages under one of
// the names (an attribute, an indexed attribute, or an event attribute).
func hasMessages(n *node, names ...string) bool {
	for _, name := range names {
		if _, ok := n.attrs[name]; ok {
			return true
		}
		if len(indexed(n, name)) > 0 {
			return true
		}
		for _, e := range n.Events {
			for _, kv := range e.Attributes {
				if kv.Key == name {
					return true
				}
			}
		}
	}
	return false
}

// eventAttr is the value of the attribute key on the span's last event
// that has it.
func eventAttr(n *node, key string) (AnyValue, bool) {
	for _, e := range slices.Backward(n.Events) {
		for _, kv := range e.Attributes {
			if kv.Key == key {
				return kv.Value, true
			}
		}
	}
	return AnyValue{}, false
}

// textOf reads text that may be JSON: a JSON string is its value; an
// object its first key of keys holding text (or its messages' last
// user message); anything else the text as it is.
func textOf(s string, keys []string) string {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '"' && t[0] != '[') {
		return s
	}
	var v any
	if json.Unmarshal([]byte(t), &v) != nil {
		return s
	}
	if x := textOfValue(v, keys); x != "" {
		return x
	}
	return s
}

func textOfValue(v any, keys []string) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		for _, k := range keys {
			if s := textOfValue(x[k], keys); s != "" {
				return s
			}
		}
		if msgs, ok := x["messages"].([]any); ok {
			return lastMessage(msgs, "")
		}
	case []any:
		return lastMessage(x, "")
	}
	return ""
}

// lastMessage is the text of the last message of role (any role when
// empty) in a list of chat messages: {role, content} or GenAI's {role,
// parts: [{type: text, content}]}.
func lastMessage(msgs []any, role string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		m, ok := msgs[i].(map[string]any)
		if !ok {
			continue
		}
		if role != "" && str(m["role"]) != role {
			continue
		}
		if s := str(m["content"]); s != "" {
			return s
		}
		if parts, ok := m["parts"].([]any); ok {
			var b []string
			for _, p := range parts {
				if pm, ok := p.(map[string]any); ok && (pm["type"] == nil || pm["type"] == "text") {
					if s := str(pm["content"]); s != "" {
						b = append(b, s)
					}
				}
			}
			if len(b) > 0 {
				return strings.Join(b, "\n")
			}
		}
	}
	return ""
}

// llmInput is the last user message an LLM span was sent.
func llmInput(n *node) string {
	for _, row := range slices.Backward(indexed(n, "llm.input_messages")) {
		if row["message.role"].Text() == "user" {
			if s := row["message.content"].Text(); s != "" {
				return s
			}
		}
	}
	for _, v := range messageValues(n, "gen_ai.input.messages") {
		if q := lastMessage(v, "user"); q != "" {
			return q
		}
	}
	if v, ok := eventAttr(n, "gen_ai.prompt"); ok { // gen_ai.content.prompt events
		if q := textOf(v.Text(), queryKeys); q != "" {
			return q
		}
	}
	for _, e := range slices.Backward(n.Events) {
		if e.Name == "gen_ai.user.message" {
			if s := eventText(e); s != "" {
				return s
			}
		}
	}
	return textOf(firstAttr(n, "gen_ai.prompt", "input.value"), queryKeys)
}

// messageValues are the chat message lists recorded under name: the
// span's attribute, then its events' (a list, or the list as a JSON
// string).
func messageValues(n *node, name string) [][]any {
	var vals []AnyValue
	if v, ok := n.attrs[name]; ok {
		vals = append(vals, v)
	}
	if v, ok := eventAttr(n, name); ok {
		vals = append(vals, v)
	}
	var out [][]any
	for _, v := range vals {
		var msgs []any
		switch x := v.Go().(type) {
		case []any:
			msgs = x
		case string:
			_ = json.Unmarshal([]byte(x), &msgs)
		}
		if len(msgs) > 0 {
			out = append(out, msgs)
		}
	}
	return out
}

// llmOutput is the answer an LLM span returned.
func llmOutput(n *node) string {
	for _, row := range slices.Backward(indexed(n, "llm.output_messages")) {
		if s := row["message.content"].Text(); s != "" {
			return s
		}
	}
	for _, msgs := range messageValues(n, "gen_ai.output.messages") {
		if s := lastMessage(msgs, ""); s != "" {
			return s
		}
	}
	if v, ok := eventAttr(n, "gen_ai.completion"); ok { // gen_ai.content.completion events
		if s := textOf(v.Text(), answerKeys); s != "" {
			return s
		}
	}
	for _, e := range slices.Backward(n.Events) {
		if e.Name == "gen_ai.choice" {
			if s := eventText(e); s != "" {
				return s
			}
		}
	}
	return textOf(firstAttr(n, "gen_ai.completion", "output.value"), answerKeys)
}

// eventText is the content of a GenAI message event: its content
// attribute, or its message's content.
func eventText(e Event) string {
	for _, kv := range e.Attributes {
		switch kv.Key {
		case "content", "gen_ai.event.content":
			return textOf(kv.Value.Text(), answerKeys)
		case "message", "body":
			if m, ok := kv.Value.Go().(map[string]any); ok {
				if s := str(m["content"]); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

// toolCall is a TOOL span as a call: its name, its arguments (JSON), and
// the span's error.
func toolCall(n *node) assay.ToolCall {
	tc := assay.ToolCall{Name: cmp.Or(firstAttr(n, "tool.name", "gen_ai.tool.name"), n.Name)}
	args := firstAttr(n, "gen_ai.tool.call.arguments", "tool_call.function.arguments", "input.value")
	if args != "" {
		if json.Valid([]byte(args)) {
			tc.Args = assay.RawJSON(args)
		} else if b, err := json.Marshal(args); err == nil {
			tc.Args = assay.RawJSON(b)
		}
	}
	if n.Status.Code == StatusError {
		tc.Error = cmp.Or(n.Status.Message, firstAttr(n, "error.type"), "error")
	}
	return tc
}

// Feedback names read (docs/traces.md#feedback).
var (
	feedbackEvents = []string{"feedback", "user_feedback", "user.feedback", "gen_ai.user.feedback", "langfuse.score"}
	labelKeys      = []string{"feedback.label", "user.feedback.label", "feedback.value", "user.feedback", "user_feedback", "feedback", "label", "value", "thumbs", "name"}
	scoreKeys      = []string{"feedback.score", "user.feedback.score", "score", "score.value"}
	commentKeys    = []string{"feedback.comment", "user.feedback.comment", "comment"}
)

// feedbackOf is the user's feedback on a span: an event named in
// feedbackEvents, else span attributes feedback.* / user.feedback*.
func feedbackOf(n *node) *assay.Feedback {
	for _, e := range n.Events {
		if !slices.Contains(feedbackEvents, e.Name) && !strings.Contains(strings.ToLower(e.Name), "feedback") {
			continue
		}
		m := map[string]AnyValue{}
		for _, kv := range e.Attributes {
			m[kv.Key] = kv.Value
		}
		if fb := feedbackFrom(m, true); fb != nil {
			return fb
		}
	}
	m := map[string]AnyValue{}
	for k, v := range n.attrs {
		if strings.HasPrefix(k, "feedback.") || strings.HasPrefix(k, "user.feedback") || k == "user_feedback" || k == "feedback" || strings.HasPrefix(k, "gen_ai.user.feedback") {
			m[k] = v
		}
	}
	return feedbackFrom(m, false)
}

func feedbackFrom(m map[string]AnyValue, event bool) *assay.Feedback {
	var fb assay.Feedback
	for _, k := range labelKeys {
		if !event && !strings.Contains(k, "feedback") {
			continue
		}
		v, ok := m[k]
		if !ok {
			continue
		}
		if v.BoolValue != nil {
			fb.Label = map[bool]string{true: "thumbs_up", false: "thumbs_down"}[*v.BoolValue]
			break
		}
		if v.StringValue != nil {
			fb.Label = thumbs(*v.StringValue)
			break
		}
		if f, ok := v.Number(); ok && fb.Score == nil {
			fb.Score = &f
		}
	}
	for _, k := range scoreKeys {
		if !event && !strings.Contains(k, "feedback") {
			continue
		}
		if f, ok := m[k].Number(); ok {
			fb.Score = &f
			break
		}
	}
	for _, k := range commentKeys {
		if v, ok := m[k]; ok && (event || strings.Contains(k, "feedback")) {
			fb.Comment = v.Text()
			break
		}
	}
	if fb.Label == "" && fb.Score == nil && fb.Comment == "" {
		return nil
	}
	return &fb
}

// thumbs names a thumbs label the one way: thumbs_down or thumbs_up;
// another label is kept as it is.
func thumbs(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "thumbs_down", "thumbs-down", "thumbsdown", "down", "negative", "bad", "dislike", "-1", "👎":
		return "thumbs_down"
	case "thumbs_up", "thumbs-up", "thumbsup", "up", "positive", "good", "like", "+1", "1", "👍":
		return "thumbs_up"
	}
	return s
}

// evaluationsOf are the span's gen_ai.evaluation.result events.
func evaluationsOf(n *node) []assay.Evaluation {
	var out []assay.Evaluation
	for _, e := range n.Events {
		if e.Name != EvaluationEvent {
			continue
		}
		var ev assay.Evaluation
		for _, kv := range e.Attributes {
			switch kv.Key {
			case "gen_ai.evaluation.name":
				ev.Name = kv.Value.Text()
			case "gen_ai.evaluation.score.value":
				if f, ok := kv.Value.Number(); ok {
					ev.Score = &f
				}
			case "gen_ai.evaluation.score.label":
				ev.Label = kv.Value.Text()
			case "gen_ai.evaluation.explanation":
				ev.Explanation = kv.Value.Text()
			}
		}
		out = append(out, ev)
	}
	return out
}

// addTags adds the span's metadata (OpenInference metadata, a JSON
// object; its string values) and tag.tags (joined with ",") as tags.
func addTags(n *node, tags *map[string]string) {
	set := func(k, v string) {
		if *tags == nil {
			*tags = map[string]string{}
		}
		if _, ok := (*tags)[k]; !ok {
			(*tags)[k] = v
		}
	}
	if s := firstAttr(n, "metadata"); s != "" {
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) == nil {
			for _, k := range sortedKeys(m) {
				if v, ok := m[k].(string); ok && !redact.IsSecretName(k) {
					set(k, v)
				}
			}
		}
	}
	if v, ok := n.attrs["tag.tags"]; ok {
		if list, ok := v.Go().([]any); ok {
			var s []string
			for _, x := range list {
				s = append(s, str(x))
			}
			set("tags", strings.Join(s, ","))
		} else {
			set("tags", v.Text())
		}
	}
}

package target

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/redact"
)

// Target files.
//
// A target file (--target target.yaml, or .yml, or .json) describes a system
// under test that a one-word spec cannot:
//
//	http:                         # an HTTP service (see HTTP)
//	  url: http://127.0.0.1:3001/api/kb/ask
//	  method: POST                # default: POST with a body, else GET; with
//	                              # neither, POST {"query": ..., "k": ...}
//	  headers: {Authorization: "Bearer ${KB_TOKEN}"}
//	  body: {question: "{{.Query}}", k: "{{.K}}"}
//	  timeout: 30s                # per request
//	  retries: 2                  # transient failures only
//	  backoff: 200ms              # base of the exponential backoff
//	  max_body: 10MiB
//	  rate: 20/s                  # optional client-side limit
//	  map: {answer: answer, retrieved: "header:x-knowlex-docs"}
//	  capture: {conv: conversation.id}   # values for later steps (.Vars)
//	  steps:                      # several requests per case, in order
//	    - {name: ask, url: /ask, body: {q: "{{.Query}}"}, capture: {id: id}}
//	    - {name: trace, method: GET, url: "/trace/{{.Vars.id}}"}
//	  setup:                      # once per run, before the cases
//	    - {url: /ingest, for_each: corpus, body: {title: "{{.Doc.Title}}", content: "{{.Doc.Text}}"}}
//	    - {method: GET, url: /stats, measures: {index_bytes: index.bytes, build_ms: "header:x-build-ms"}}
//	  cleanup:                    # after each case is graded (skipped by Keep)
//	    - {method: DELETE, url: "/conversations/{{.Vars.id}}"}
//
//	command: [gno, query, --json, "{{.Query}}"]        # a process per case
//	command: {serve: [mysystem, --jsonl], workers: 2}  # long-lived processes
//	timeout: 30s                  # command options sit beside command:
//	map: {answer: answer}
//	env: {MODE: eval}
//	dir: .
//	max_body: 10MiB               # the most stdout read per case
//
//	tools: [search, get]          # the tools the (default) target has
//	surfaces:                     # several named targets in one file
//	  kb:    {tools: [search], http: {url: ...}}
//	  agent: {tools: [search, get_doc], command: [...]}
//
// Step URLs without a scheme resolve against http.url; http.headers are sent
// with every step. Relative command paths and dir resolve against the file's
// directory. Unknown fields are errors at their line and column.
//
// A case with surface: NAME is sent to that surface; a case without one goes
// to the file's top-level http:/command:, or to the only surface when there
// is just one. Surfaces reports the tools of each surface, for lint.

// firstOf is the value of the first of keys root has, or nil.
func firstOf(root *node, keys ...string) *node {
	for _, k := range keys {
		if n := root.get(k); n != nil {
			return n
		}
	}
	return nil
}

// openFile opens a target file.
func openFile(path string, o Options) (assay.Target, error) {
	src, err := boundedfile.ReadFile(path, boundedfile.TargetFile)
	if err != nil {
		return nil, fmt.Errorf("target file: %w", err)
	}
	return parseFile(path, src, o)
}

// ParseFile opens a target file's contents; path is used for messages and
// to resolve relative paths.
func ParseFile(path string, src []byte, o Options) (assay.Target, error) {
	return parseFile(path, src, o)
}

var (
	topKeys     = []string{"http", "command", "builtin", "embeddings", "rerank", "surfaces", "tools", "name", "description", "timeout", "map", "env", "dir", "max_body", "variants", "ordering", "prices"}
	surfaceKeys = []string{"http", "command", "tools", "description", "timeout", "map", "env", "dir", "max_body"}
	httpKeys    = []string{"url", "method", "headers", "body", "timeout", "retries", "backoff", "max_body", "rate", "map", "capture", "steps", "setup", "cleanup"}
	stepKeys    = []string{"name", "url", "method", "headers", "body", "capture", "for_each", "measures"}
	commandKeys = []string{"run", "serve", "workers", "timeout", "map", "env", "dir", "max_body"}
)

func parseFile(path string, src []byte, o Options) (t assay.Target, err error) {
	var sc *secrets
	defer func() {
		// An error that quotes a value expanded from ${VAR} (a bad
		// duration, a bad url) shows ${VAR} instead.
		var pe *diag.PosError
		if err != nil && sc != nil && errors.As(err, &pe) {
			c := *pe
			c.Msg = sc.redact(c.Msg)
			err = &c
		}
	}()
	root, err := parseTree(path, src)
	if err != nil {
		return nil, err
	}
	if root.kind != mapNode {
		return nil, root.errorf("a target file is a mapping with http:, command: or surfaces:")
	}
	if err := root.checkKeys("target file", topKeys...); err != nil {
		return nil, err
	}
	if err := checkVariantKeys(root, o.Variant); err != nil {
		return nil, err
	}
	written := root.plain()
	sc = newSecrets()
	if err := root.expandEnv(sc, o.Getenv); err != nil {
		return nil, err
	}
	sc.seal()
	fc := &fileCtx{path: path, dir: filepath.Dir(path), o: o, sc: sc, written: written}

	var def assay.Target
	if bn := root.get("builtin"); bn != nil {
		if root.get("http") != nil || root.get("command") != nil {
			return nil, bn.errorf("builtin: a target file has one of builtin:, http: or command:")
		}
		spec, err := bn.str("builtin")
		if err != nil {
			return nil, err
		}
		st, err := compileStr(bn, "builtin", spec)
		if err != nil {
			return nil, err
		}
		if spec, err = st.render(&tmplData{Variant: o.Variant}); err != nil {
			return nil, bn.errorf("builtin: %v", err)
		}
		if spec == "" || spec == "builtin" || strings.HasPrefix(spec, ":") || strings.HasPrefix(spec, "?") {
			spec = "builtin" + strings.TrimPrefix(spec, "builtin")
		}
		emb, err := fc.fileEndpoint(root.get("embeddings"), "embeddings")
		if err != nil {
			return nil, err
		}
		rer, err := fc.fileEndpoint(root.get("rerank"), "rerank")
		if err != nil {
			return nil, err
		}
		if def, err = openBuiltin(spec, o, emb, rer); err != nil {
			return nil, bn.errorf("%v", err)
		}
	} else if n := firstOf(root, "embeddings", "rerank"); n != nil {
		return nil, n.errorf("embeddings: and rerank: configure builtin:hybrid: add builtin: \"builtin:hybrid\" to the file")
	} else if root.get("http") != nil || root.get("command") != nil {
		if def, err = fc.parseTarget(root, "target file"); err != nil {
			return nil, err
		}
	} else {
		for _, k := range []string{"timeout", "map", "env", "dir", "max_body"} {
			if n := root.get(k); n != nil {
				return nil, n.errorf("%s: only with command: (put HTTP options under http:)", k)
			}
		}
	}
	sn := root.get("surfaces")
	if sn == nil {
		if def == nil {
			return nil, root.errorf("a target file needs builtin:, http:, command: or surfaces:")
		}
		return def, nil
	}
	if sn.kind != mapNode || len(sn.keys) == 0 {
		return nil, sn.errorf("surfaces: want a mapping of surface name to target")
	}
	ft := &fileTarget{path: path, def: def, surfaces: map[string]assay.Target{}, config: written, secrets: sc}
	for i, name := range sn.keys {
		v := sn.vals[i]
		if v.kind != mapNode {
			return nil, v.errorf("surfaces.%s: want a mapping with http: or command:", name)
		}
		if err := v.checkKeys("surfaces."+name, surfaceKeys...); err != nil {
			return nil, err
		}
		if v.get("http") == nil && v.get("command") == nil {
			return nil, v.errorf("surfaces.%s: needs http: or command:", name)
		}
		t, err := fc.parseTarget(v, "surfaces."+name)
		if err != nil {
			ft.Close()
			return nil, err
		}
		ft.surfaces[name] = t
		ft.names = append(ft.names, name)
	}
	return ft, nil
}

type fileCtx struct {
	path, dir string
	o         Options
	sc        *secrets
	written   any
}

// parseTarget reads http: or command: (with its sibling options) from n.
func (fc *fileCtx) parseTarget(n *node, where string) (assay.Target, error) {
	hn, cn := n.get("http"), n.get("command")
	if hn != nil && cn != nil {
		return nil, cn.errorf("%s: has both http: and command: (one target each; use surfaces: for several)", where)
	}
	if hn != nil {
		for _, k := range []string{"timeout", "map", "env", "dir", "max_body"} {
			if x := n.get(k); x != nil {
				return nil, x.errorf("%s: put %s under http:", where, k)
			}
		}
		return fc.parseHTTP(hn)
	}
	return fc.parseCommand(n, cn)
}

func (fc *fileCtx) parseHTTP(n *node) (*HTTP, error) {
	if n.kind != mapNode {
		return nil, n.errorf("http: want a mapping with url:")
	}
	if err := n.checkKeys("http", httpKeys...); err != nil {
		return nil, err
	}
	h := newHTTP(fc.path, fc.o)
	h.secrets = fc.sc
	h.config = fc.written
	un := n.get("url")
	if un == nil {
		return nil, n.errorf("http: needs url:")
	}
	us, err := un.str("http.url")
	if err != nil {
		return nil, err
	}
	if err := fc.checkURL(un, "http.url", us); err != nil {
		return nil, err
	}
	// The base that step urls resolve against is the url up to its first
	// template action.
	baseStr, _, _ := strings.Cut(us, "{{")
	if h.base, err = url.Parse(baseStr); err != nil || h.base.Host == "" || (h.base.Scheme != "http" && h.base.Scheme != "https") {
		return nil, un.errorf("http.url: %q is not an http:// or https:// url", fc.sc.redact(us))
	}
	if x := n.get("timeout"); x != nil {
		if h.timeout, err = durationOf(x, "http.timeout"); err != nil {
			return nil, err
		}
	}
	if x := n.get("backoff"); x != nil {
		if h.backoff, err = durationOf(x, "http.backoff"); err != nil {
			return nil, err
		}
	}
	if x := n.get("retries"); x != nil {
		if h.retries, err = x.integer("http.retries"); err != nil {
			return nil, err
		}
		if h.retries < 0 || h.retries > 10 {
			return nil, x.errorf("http.retries: want 0 to 10, got %d", h.retries)
		}
	}
	if x := n.get("max_body"); x != nil {
		if h.maxBody, err = sizeOf(x, "http.max_body"); err != nil {
			return nil, err
		}
	}
	if x := n.get("rate"); x != nil {
		s, err := x.str("http.rate")
		if err != nil {
			return nil, err
		}
		iv, err := parseRate(s)
		if err != nil {
			return nil, x.errorf("http.%s", err.Error())
		}
		h.limiter = &limiter{interval: iv}
	}
	var common []httpHeader
	if x := n.get("headers"); x != nil {
		if common, err = fc.parseHeaders(x, "http.headers"); err != nil {
			return nil, err
		}
	}
	if sn := n.get("steps"); sn != nil {
		for _, k := range []string{"method", "body", "capture"} {
			if x := n.get(k); x != nil {
				return nil, x.errorf("http.%s: with steps:, give each step its own %s", k, k)
			}
		}
		if h.steps, err = fc.parseSteps(sn, "http.steps", common, false); err != nil {
			return nil, err
		}
	} else {
		st, err := fc.parseStep(n, "http", "request", common, false, true)
		if err != nil {
			return nil, err
		}
		if st.url, err = compileStr(un, "http.url", us); err != nil {
			return nil, err
		}
		if n.get("body") == nil && n.get("method") == nil {
			// Like the shorthand: POST {"query", "k"}.
			st.method, st.body = http.MethodPost, shorthandBody()
		}
		h.steps = []*httpStep{st}
	}
	names := make([]string, len(h.steps))
	for i, st := range h.steps {
		names[i] = st.name
	}
	if x := n.get("map"); x != nil {
		if h.mapping, err = parseMap(x, names, true); err != nil {
			return nil, err
		}
	} else {
		h.mapping = defaultMap()
	}
	if x := n.get("setup"); x != nil {
		if h.setup, err = fc.parseSteps(x, "http.setup", common, true); err != nil {
			return nil, err
		}
	}
	if x := n.get("cleanup"); x != nil {
		if h.cleanup, err = fc.parseSteps(x, "http.cleanup", common, false); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (fc *fileCtx) parseSteps(n *node, where string, common []httpHeader, setup bool) ([]*httpStep, error) {
	if n.kind != seqNode || len(n.items) == 0 {
		return nil, n.errorf("%s: want a list of requests", where)
	}
	var out []*httpStep
	seen := map[string]bool{}
	for i, it := range n.items {
		w := fmt.Sprintf("%s[%d]", where, i)
		if it.kind != mapNode {
			return nil, it.errorf("%s: want a mapping with url:", w)
		}
		if err := it.checkKeys(w, stepKeys...); err != nil {
			return nil, err
		}
		name := fmt.Sprintf("step%d", i+1)
		if x := it.get("name"); x != nil {
			s, err := x.str(w + ".name")
			if err != nil {
				return nil, err
			}
			if s == "" || s == "header" || strings.ContainsAny(s, ":.#|@*? ") {
				return nil, x.errorf("%s.name: %q cannot name a step (letters, digits, - and _)", w, s)
			}
			name = s
		}
		if seen[name] {
			return nil, it.errorf("%s: a step named %q already exists", w, name)
		}
		seen[name] = true
		st, err := fc.parseStep(it, w, name, common, setup, false)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// parseStep reads method, url, headers, body, capture and for_each from n.
// When topLevel, n is the http: block itself and url: was read already.
func (fc *fileCtx) parseStep(n *node, where, name string, common []httpHeader, setup, topLevel bool) (*httpStep, error) {
	st := &httpStep{name: name}
	if !topLevel {
		un := n.get("url")
		if un == nil {
			return nil, n.errorf("%s: needs url:", where)
		}
		s, err := un.str(where + ".url")
		if err != nil {
			return nil, err
		}
		if err := fc.checkURL(un, where+".url", s); err != nil {
			return nil, err
		}
		if st.url, err = compileStr(un, where+".url", s); err != nil {
			return nil, err
		}
	}
	st.headers = append(st.headers, common...)
	if x := n.get("headers"); x != nil && !topLevel {
		own, err := fc.parseHeaders(x, where+".headers")
		if err != nil {
			return nil, err
		}
		st.headers = append(st.headers, own...)
	}
	if x := n.get("body"); x != nil {
		if s, ok := x.value.(string); ok && x.kind == scalarNode {
			if err := fc.checkLiteralBody(x, where+".body"); err != nil {
				return nil, err
			}
			t, err := compileStr(x, where+".body", s)
			if err != nil {
				return nil, err
			}
			st.body = &bodyTmpl{kind: bodyString, str: t}
			if !t.isTemplate() {
				st.body = &bodyTmpl{kind: bodyLiteral, raw: []byte(s)}
			} else {
				st.body = &bodyTmpl{kind: bodyTyped, typed: t.t}
			}
			st.rawBody = true
		} else {
			if err := fc.checkLiteralFields(x, where+".body"); err != nil {
				return nil, err
			}
			b, err := compileBody(x, where+".body")
			if err != nil {
				return nil, err
			}
			st.body = b
		}
	}
	st.method = http.MethodGet
	if st.body != nil {
		st.method = http.MethodPost
	}
	if x := n.get("method"); x != nil {
		s, err := x.str(where + ".method")
		if err != nil {
			return nil, err
		}
		s = strings.ToUpper(s)
		switch s {
		case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
		default:
			return nil, x.errorf("%s.method: unknown method %q (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS)", where, s)
		}
		st.method = s
	}
	if x := n.get("capture"); x != nil {
		if x.kind != mapNode {
			return nil, x.errorf("%s.capture: want a mapping of variable name to path", where)
		}
		caps, err := parseMap(x, nil, true)
		if err != nil {
			return nil, err
		}
		st.capture = caps
	}
	if x := n.get("measures"); x != nil {
		if !setup || topLevel {
			return nil, x.errorf("%s.measures: only setup steps report measures", where)
		}
		if x.kind != mapNode {
			return nil, x.errorf("%s.measures: want a mapping of measure name to path", where)
		}
		for i, k := range x.keys {
			if !assay.IsMeasureName(k) {
				return nil, x.vals[i].errorf("%s.measures: %q cannot name a measure (a lowercase letter, then lowercase letters, digits and _)", where, k)
			}
		}
		ms, err := parseMap(x, nil, true)
		if err != nil {
			return nil, err
		}
		st.measure = ms
	}
	if x := n.get("for_each"); x != nil {
		s, err := x.str(where + ".for_each")
		if err != nil {
			return nil, err
		}
		if !setup {
			return nil, x.errorf("%s.for_each: only setup steps repeat", where)
		}
		if s != "corpus" {
			return nil, x.errorf("%s.for_each: unknown value %q (corpus)", where, s)
		}
		st.forEach = s
		if st.measure != nil {
			return nil, x.errorf("%s: a step with for_each cannot report measures (add a step after it that reads them)", where)
		}
	}
	return st, nil
}

func (fc *fileCtx) parseHeaders(n *node, where string) ([]httpHeader, error) {
	if n.kind != mapNode {
		return nil, n.errorf("%s: want a mapping of header name to value", where)
	}
	var out []httpHeader
	for i, k := range n.keys {
		v := n.vals[i]
		s, err := v.str(where + "." + k)
		if err != nil {
			return nil, err
		}
		if err := fc.checkLiteral(v, where, k, s); err != nil {
			return nil, err
		}
		t, err := compileStr(v, where+"."+k, s)
		if err != nil {
			return nil, err
		}
		out = append(out, httpHeader{name: http.CanonicalHeaderKey(k), val: t})
	}
	return out, nil
}

// checkLiteral refuses a literal credential under a credential-like name.
func (fc *fileCtx) checkLiteral(v *node, where, name, s string) error {
	if v.env || s == "" || strings.Contains(s, "{{") || !redact.IsSecretName(name) {
		return nil
	}
	if fc.o.AllowLiteralSecrets {
		fc.sc.add(redact.Secret{Value: s}) // let through: a secret like an expanded one
		return nil
	}
	return v.errorf("%s.%s: literal credential in the file; write it as ${VAR} and set VAR in the environment (or pass --allow-literal-secrets)", where, name)
}

// checkLiteralFields refuses a literal credential among the fields of a
// body: a scalar (a string, or a number of redact.MinLen characters or
// more) under a credential-like name, and every scalar, at any depth,
// inside a mapping or list under such a name (credentials: {user: u,
// pass: p}; api_key: [k]).
func (fc *fileCtx) checkLiteralFields(n *node, where string) error {
	return fc.checkLiteralTree(n, where, "")
}

// checkLiteralTree is checkLiteralFields below a credential-like name
// (under, "" at the top).
func (fc *fileCtx) checkLiteralTree(n *node, where, under string) error {
	switch n.kind {
	case scalarNode:
		if under == "" || n.env {
			return nil
		}
		if s, ok := scalarText(n); ok && s != "" && !strings.Contains(s, "{{") {
			if fc.o.AllowLiteralSecrets {
				fc.sc.add(redact.Secret{Value: s})
				return nil
			}
			return n.errorf("%s: literal credential in the file (inside %s); write it as ${VAR} and set VAR in the environment (or pass --allow-literal-secrets)", where, under)
		}
	case mapNode:
		for i, k := range n.keys {
			v := n.vals[i]
			if under == "" && v.kind == scalarNode {
				if s, ok := scalarText(v); ok {
					if err := fc.checkLiteral(v, where, k, s); err != nil {
						return err
					}
				}
				continue
			}
			u := under
			if u == "" && redact.IsSecretName(k) {
				u = k
			}
			if err := fc.checkLiteralTree(v, where+"."+k, u); err != nil {
				return err
			}
		}
	case seqNode:
		for i, it := range n.items {
			if err := fc.checkLiteralTree(it, fmt.Sprintf("%s[%d]", where, i), under); err != nil {
				return err
			}
		}
	}
	return nil
}

// scalarText is a scalar's text when it could hold a credential: a string,
// or a number written with redact.MinLen characters or more (a PIN, a
// numeric key). Booleans and short numbers are not credentials.
func scalarText(n *node) (string, bool) {
	switch v := n.value.(type) {
	case string:
		return v, true
	case int64, uint64, float64:
		s := fmt.Sprint(v)
		return s, len(s) >= redact.MinLen
	}
	return "", false
}

// checkLiteralBody refuses a literal credential in a body written as one
// string: a JSON object whose fields hold one (as checkLiteralFields), or
// form fields (api_key=...&q=...) named like a credential.
func (fc *fileCtx) checkLiteralBody(n *node, where string) error {
	if n.env {
		return nil
	}
	written := n.written
	if written == "" {
		written, _ = n.value.(string)
	}
	var v any
	if json.Unmarshal([]byte(written), &v) == nil {
		if path := jsonLiteral(v, "", false); path != "" {
			if fc.o.AllowLiteralSecrets {
				fc.sc.add(jsonSecrets(v, false)...)
				return nil
			}
			return n.errorf("%s: literal credential in the body (%s); write it as ${VAR} and set VAR in the environment (or pass --allow-literal-secrets)", where, path)
		}
		return nil
	}
	if q, err := url.ParseQuery(strings.TrimSpace(written)); err == nil {
		for k, vs := range q {
			for _, v := range vs {
				if redact.IsSecretName(k) && redact.IsLiteral(v) {
					if fc.o.AllowLiteralSecrets {
						fc.sc.add(redact.Secret{Value: v})
						continue
					}
					return n.errorf("%s: literal credential in the body (form field %s); write it as ${VAR} and set VAR in the environment (or pass --allow-literal-secrets)", where, k)
				}
			}
		}
	}
	return nil
}

// jsonSecrets are the literal credentials of a decoded JSON value.
func jsonSecrets(v any, under bool) []redact.Secret {
	var out []redact.Secret
	switch x := v.(type) {
	case map[string]any:
		for k, it := range x {
			out = append(out, jsonSecrets(it, under || redact.IsSecretName(k))...)
		}
	case []any:
		for _, it := range x {
			out = append(out, jsonSecrets(it, under)...)
		}
	case string:
		if under && redact.IsLiteral(x) {
			out = append(out, redact.Secret{Value: x})
		}
	}
	return out
}

// jsonLiteral returns the path of the first literal credential in a
// decoded JSON value ("" for none), by checkLiteralFields' rule.
func jsonLiteral(v any, path string, under bool) string {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p := jsonLiteral(x[k], path+"."+k, under || redact.IsSecretName(k)); p != "" {
				return p
			}
		}
	case []any:
		for i, it := range x {
			if p := jsonLiteral(it, fmt.Sprintf("%s[%d]", path, i), under); p != "" {
				return p
			}
		}
	case string:
		if under && redact.IsLiteral(x) {
			return strings.TrimPrefix(path, ".")
		}
	case float64:
		if under && len(fmt.Sprint(x)) >= redact.MinLen {
			return strings.TrimPrefix(path, ".")
		}
	}
	return ""
}

func durationOf(n *node, what string) (time.Duration, error) {
	s, err := n.str(what)
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, n.errorf("%s: want a positive duration like 30s or 500ms, got %q", what, s)
	}
	return d, nil
}

func sizeOf(n *node, what string) (int64, error) {
	s, err := n.str(what)
	if err != nil {
		return 0, err
	}
	v, err := parseSize(s)
	if err != nil {
		return 0, n.errorf("%s: %s", what, err.Error())
	}
	return v, nil
}

// fingerprint is sha256 over the canonical JSON of a redacted config.
func fingerprint(v any) string {
	b, err := json.Marshal(v) // map keys are sorted
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fileTarget is a target file with surfaces: it sends each case to the
// target its surface names.
type fileTarget struct {
	path     string
	def      assay.Target
	surfaces map[string]assay.Target
	names    []string
	config   any
	secrets  *secrets
}

var (
	_ assay.Target    = (*fileTarget)(nil)
	_ assay.Describer = (*fileTarget)(nil)
	_ assay.Setupper  = (*fileTarget)(nil)
	_ assay.Cleaner   = (*fileTarget)(nil)
	_ assay.Measurer  = (*fileTarget)(nil)
	_ assay.Measurer  = (*HTTP)(nil)
)

func (f *fileTarget) pick(c assay.Case) (assay.Target, error) {
	if c.Surface != "" {
		if t := f.surfaces[c.Surface]; t != nil {
			return t, nil
		}
		return nil, assay.Errorf(assay.ErrMalformed, "case %s names surface %q; %s has %s", c.ID, c.Surface, f.path, strings.Join(f.names, ", "))
	}
	if f.def != nil {
		return f.def, nil
	}
	if len(f.names) == 1 {
		return f.surfaces[f.names[0]], nil
	}
	return nil, assay.Errorf(assay.ErrMalformed, "case %s names no surface; %s has %s and no top-level target", c.ID, f.path, strings.Join(f.names, ", "))
}

// Observe sends the case to its surface.
func (f *fileTarget) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	t, err := f.pick(c)
	if err != nil {
		e := assay.AsError(err)
		return assay.Observation{Case: c.ID, Trial: assay.TrialFrom(ctx), Error: e}, e
	}
	return t.Observe(ctx, c)
}

func (f *fileTarget) all() []assay.Target {
	var out []assay.Target
	if f.def != nil {
		out = append(out, f.def)
	}
	for _, n := range f.names {
		out = append(out, f.surfaces[n])
	}
	return out
}

// Setup sets up every target of the file.
func (f *fileTarget) Setup(ctx context.Context) error {
	for _, t := range f.all() {
		if s, ok := t.(assay.Setupper); ok {
			if err := s.Setup(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// Measures merges the run-level measures of the file's targets: a name
// reported by more than one (the top-level target, then the surfaces in
// file order) takes the first one's value.
func (f *fileTarget) Measures() map[string]float64 {
	var out map[string]float64
	for _, t := range f.all() {
		m, ok := t.(assay.Measurer)
		if !ok {
			continue
		}
		for k, v := range m.Measures() {
			if _, dup := out[k]; dup {
				continue
			}
			if out == nil {
				out = map[string]float64{}
			}
			out[k] = v
		}
	}
	return out
}

// Cleanup cleans up after the case on its surface.
func (f *fileTarget) Cleanup(ctx context.Context, c assay.Case, obs assay.Observation) error {
	t, err := f.pick(c)
	if err != nil {
		return nil
	}
	if cl, ok := t.(assay.Cleaner); ok {
		return cl.Cleanup(ctx, c, obs)
	}
	return nil
}

// Secrets returns the values expanded from the environment (and the
// forms derived from them): everything the run must redact.
func (f *fileTarget) Secrets() []redact.Secret { return f.secrets.list() }

// Describe names the file and its redacted configuration.
func (f *fileTarget) Describe() assay.TargetInfo {
	cfg, _ := redactConfig(f.config).(map[string]any)
	return assay.TargetInfo{Kind: "surfaces", Spec: f.path, Config: cfg, Fingerprint: fingerprint(cfg)}
}

// Close closes every target of the file.
func (f *fileTarget) Close() error {
	var errs []error
	for _, t := range f.all() {
		errs = append(errs, Close(t))
	}
	return errors.Join(errs...)
}

// Surfaces reads the surfaces of a target file and the tools each has, for
// lint: a case naming a surface must name one of these, and a case's
// calls_tool / never_calls tools must be among its surface's tools. The
// top-level target (if any) is the surface "" with the file's tools:. A
// surface that lists no tools maps to nil (nothing to check). Environment
// variables are not expanded.
func Surfaces(path string) (map[string][]string, error) {
	src, err := boundedfile.ReadFile(path, boundedfile.TargetFile)
	if err != nil {
		return nil, fmt.Errorf("target file: %w", err)
	}
	root, err := parseTree(path, src)
	if err != nil {
		return nil, err
	}
	if root.kind != mapNode {
		return nil, root.errorf("a target file is a mapping with http:, command: or surfaces:")
	}
	if err := root.checkKeys("target file", topKeys...); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	tools := func(n *node, where string) ([]string, error) {
		x := n.get("tools")
		if x == nil {
			return nil, nil
		}
		l, err := x.strList(where + ".tools")
		if err != nil {
			return nil, err
		}
		sort.Strings(l)
		return l, nil
	}
	if root.get("http") != nil || root.get("command") != nil || root.get("tools") != nil {
		t, err := tools(root, "target file")
		if err != nil {
			return nil, err
		}
		out[""] = t
	}
	if sn := root.get("surfaces"); sn != nil {
		if sn.kind != mapNode {
			return nil, sn.errorf("surfaces: want a mapping of surface name to target")
		}
		for i, name := range sn.keys {
			v := sn.vals[i]
			if v.kind != mapNode {
				return nil, v.errorf("surfaces.%s: want a mapping with http: or command:", name)
			}
			t, err := tools(v, "surfaces."+name)
			if err != nil {
				return nil, err
			}
			out[name] = t
		}
	}
	return out, nil
}

// Matrix is the variant matrix a target file declares:
//
//	variants:                 # every combination is one run of the group
//	  mode: [fast, balanced, thorough]
//	ordering: "ndcg@10: fast <= balanced <= thorough"   # or a list of them
//
// Variants holds one map per combination (the first key varies slowest,
// values in written order); templates see them as .Variant.KEY.
type Matrix struct {
	Keys      []string
	Variants  []map[string]string
	Orderings []assay.Gate
}

// MaxVariants caps the combinations of a variant matrix: each is a whole
// run of the suite, and a matrix of more is almost always a typo or a
// cross product nobody meant.
const MaxVariants = 64

// product multiplies decimal counts; ok is false past a million.
func product(counts []string) (int, bool) {
	p := 1
	for _, c := range counts {
		n, _ := strconv.Atoi(c)
		p *= n
		if p > 1_000_000 {
			return 0, false
		}
	}
	return p, true
}

// ReadMatrix reads the variants: and ordering: of a target file. A file
// without variants: gives a zero Matrix. More than MaxVariants
// combinations is a positioned error.
func ReadMatrix(path string) (Matrix, error) {
	var m Matrix
	src, err := boundedfile.ReadFile(path, boundedfile.TargetFile)
	if err != nil {
		return m, fmt.Errorf("target file: %w", err)
	}
	root, err := parseTree(path, src)
	if err != nil {
		return m, err
	}
	if root.kind != mapNode {
		return m, root.errorf("a target file is a mapping with builtin:, http:, command: or surfaces:")
	}
	vn := root.get("variants")
	on := root.get("ordering")
	if vn == nil {
		if on != nil {
			return m, on.errorf("ordering: needs variants:")
		}
		return m, nil
	}
	if vn.kind != mapNode || len(vn.keys) == 0 {
		return m, vn.errorf("variants: want a mapping of key to a list of values, e.g. mode: [fast, thorough]")
	}
	// Count the combinations first: the cap is checked before any variant
	// map is built (and long before anything runs).
	counts := make([]string, len(vn.keys))
	combos, over := 1, false
	for i, k := range vn.keys {
		vals, err := vn.vals[i].strList("variants." + k)
		if err != nil {
			return Matrix{}, err
		}
		if len(vals) == 0 {
			return Matrix{}, vn.vals[i].errorf("variants.%s: want at least one value", k)
		}
		counts[i] = strconv.Itoa(len(vals))
		if over || len(vals) > MaxVariants || combos*len(vals) > MaxVariants {
			over = true
			continue
		}
		combos *= len(vals)
	}
	if over {
		total := "more than " + strconv.Itoa(MaxVariants)
		if p, ok := product(counts); ok {
			total = strconv.Itoa(p)
		}
		total += " combinations"
		if len(vn.keys) > 1 {
			total += " (" + strings.Join(counts, " × ") + ")"
		}
		return Matrix{}, vn.errorf("variants: %s; at most %d run in one matrix: drop values or split it into several target files",
			total, MaxVariants)
	}
	m.Variants = []map[string]string{{}}
	for i, k := range vn.keys {
		vals, _ := vn.vals[i].strList("variants." + k)
		seen := map[string]bool{}
		for _, v := range vals {
			if v == "" || seen[v] {
				return Matrix{}, vn.vals[i].errorf("variants.%s: values must be distinct and non-empty", k)
			}
			// A value names files (--record t.VALUE.jsonl, --report-dir
			// DIR/VALUE/) and runs ("fast/slim" joins the values of two keys).
			if strings.ContainsAny(v, `/\`) || v == "." || v == ".." {
				return Matrix{}, vn.vals[i].errorf("variants.%s: value %q: a variant value names files and runs: no / or \\, not . or ..", k, v)
			}
			seen[v] = true
		}
		m.Keys = append(m.Keys, k)
		var next []map[string]string
		for _, base := range m.Variants {
			for _, v := range vals {
				c := make(map[string]string, len(base)+1)
				for bk, bv := range base {
					c[bk] = bv
				}
				c[k] = v
				next = append(next, c)
			}
		}
		m.Variants = next
	}
	if on != nil {
		items := []*node{on}
		if on.kind == seqNode {
			items = on.items
		}
		for _, it := range items {
			s, err := it.str("ordering")
			if err != nil {
				return Matrix{}, err
			}
			m.Orderings = append(m.Orderings, assay.Gate{Expr: s, Source: fmt.Sprintf("%s:%d:%d", path, it.line, it.col)})
		}
	}
	return m, nil
}

// variantRef finds .Variant.KEY inside template actions.
var variantRef = regexp.MustCompile(`{{[^}]*?\.Variant\.([A-Za-z_][A-Za-z0-9_]*)`)

// checkVariantKeys rejects a template that reads a variant key the file's
// variants: does not declare: it would render empty in every variant, so a
// misspelt key ran every variant alike. Keys of the variant the target is
// opened for count as declared.
func checkVariantKeys(root *node, given map[string]string) error {
	declared := map[string]bool{}
	var keys []string
	for k := range given { // a variant given by the caller (Options.Variant)
		declared[k] = true
	}
	if vn := root.get("variants"); vn != nil && vn.kind == mapNode {
		keys = vn.keys
		for _, k := range vn.keys {
			declared[k] = true
		}
	}
	var walk func(n *node) error
	walk = func(n *node) error {
		switch n.kind {
		case mapNode:
			for i, k := range n.keys {
				if k == "variants" && n == root {
					continue
				}
				if err := walk(n.vals[i]); err != nil {
					return err
				}
			}
		case seqNode:
			for _, it := range n.items {
				if err := walk(it); err != nil {
					return err
				}
			}
		default:
			str, ok := n.value.(string)
			if !ok {
				return nil
			}
			for _, m := range variantRef.FindAllStringSubmatch(str, -1) {
				if declared[m[1]] {
					continue
				}
				if len(keys) == 0 {
					return n.errorf(".Variant.%s: the file declares no variants:", m[1])
				}
				return n.errorf(".Variant.%s: no such variant key (variants: %s)", m[1], strings.Join(keys, ", "))
			}
		}
		return nil
	}
	return walk(root)
}

// ReadPrices reads the prices: of a target file: per model (or "*" for
// any other), input, output and optionally cached_input, US dollars per
// million tokens (docs/cost.md). nil when the file has none. A run prices
// the system's usage with the suite's table, the target file's entries
// added to it and replacing the suite's for the same model.
func ReadPrices(path string) (assay.PriceTable, error) {
	src, err := boundedfile.ReadFile(path, boundedfile.TargetFile)
	if err != nil {
		return nil, fmt.Errorf("target file: %w", err)
	}
	root, err := parseTree(path, src)
	if err != nil {
		return nil, err
	}
	if root.kind != mapNode {
		return nil, root.errorf("a target file is a mapping with builtin:, http:, command: or surfaces:")
	}
	pn := root.get("prices")
	if pn == nil || (pn.kind == scalarNode && pn.value == nil) {
		return nil, nil
	}
	if pn.kind != mapNode {
		return nil, pn.errorf("prices: want a mapping of model to {input, output}, e.g. gpt-4o-mini: {input: 0.15, output: 0.6}")
	}
	out := assay.PriceTable{}
	for i, model := range pn.keys {
		mn := pn.vals[i]
		what := "prices." + model
		if mn.kind != mapNode {
			return nil, mn.errorf("%s: want a mapping with input and output, US dollars per million tokens", what)
		}
		if err := mn.checkKeys(what, "input", "output", "cached_input"); err != nil {
			return nil, err
		}
		var p assay.Price
		for _, k := range []string{"input", "output", "cached_input"} {
			vn := mn.get(k)
			if vn == nil {
				if k != "cached_input" {
					return nil, mn.errorf("%s: missing %s (US dollars per million tokens; 0 when free)", what, k)
				}
				continue
			}
			var v float64
			switch x := vn.value.(type) {
			case int64:
				v = float64(x)
			case uint64:
				v = float64(x)
			case float64:
				v = x
			default:
				return nil, vn.errorf("%s.%s: want a number, got %v", what, k, vn.value)
			}
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, vn.errorf("%s.%s: a price is a number >= 0 (US dollars per million tokens), got %v", what, k, v)
			}
			switch k {
			case "input":
				p.Input = v
			case "output":
				p.Output = v
			default:
				p.CachedInput = &v
			}
		}
		out[model] = p
	}
	return out, nil
}

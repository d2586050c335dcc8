package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/retry"
	"github.com/assay-eval/assay/redact"
	"github.com/tidwall/gjson"
)

// HTTP drives a system under test over HTTP: one or more requests per case
// (steps), the response mapped to an observation, with per-request timeouts,
// retries of transient failures, a response size limit and an optional
// client-side rate limit. It is safe for concurrent use.
//
// Every failure is returned as an *assay.Error (and set as the returned
// observation's Error): timeout (no response within the timeout), transport
// (connection refused or reset), http_status (a non-2xx status after any
// retries, with Status set), malformed (a body that is not JSON, a mapped
// field of the wrong type, a body over max_body), canceled (the run was
// interrupted).
//
// Retries (retries: N, default 2 in target files and the shorthand) apply to
// transient failures only: connection errors (refused, reset, closed before a
// response), 429, 502, 503 and 504. The wait before retry n is a random
// duration in [b·2ⁿ/2, b·2ⁿ] (b = backoff, default 200ms, capped at 10s), or
// the response's Retry-After (seconds or an HTTP date) when that is longer; a
// wait that would pass the case's deadline is not made. A timeout is not
// retried. The observation's attempts is 1 + the retries its steps needed
// (1 when nothing was retried). Its latency_ms is the wall time of the whole
// exchange, failed attempts included but the backoff waits between them left
// out (they are assay's, not the system's), unless a map: reads latency_ms;
// when something was retried, latency_total_ms is the wall time with the
// waits. Waits for the client-side rate limit count in both.
type HTTP struct {
	spec     string
	base     *url.URL
	steps    []*httpStep
	setup    []*httpStep
	cleanup  []*httpStep
	mapping  []mapField
	timeout  time.Duration
	retries  int
	backoff  time.Duration
	maxBody  int64
	limiter  *limiter
	defaultK int
	variant  map[string]string
	keep     bool
	suite    *assay.Suite
	secrets  *secrets
	config   any // the config as written, for Describe
	client   *http.Client
	tr       *http.Transport

	runVars map[string]string // captured by setup; read-only once cases run
	// measures are the run-level measures setup steps read; read-only once
	// cases run.
	measures map[string]float64
	pending  sync.Map // caseID/trial -> vars, for cleanup
}

var (
	_ assay.Target    = (*HTTP)(nil)
	_ assay.Describer = (*HTTP)(nil)
	_ assay.Setupper  = (*HTTP)(nil)
	_ assay.Cleaner   = (*HTTP)(nil)
)

// httpStep is one request.
type httpStep struct {
	name    string
	method  string
	url     strTmpl
	headers []httpHeader
	body    *bodyTmpl // nil: no body
	rawBody bool      // body is a text template sent as is
	capture []mapField
	forEach string     // setup only: "corpus"
	measure []mapField // setup only: run-level measures read from the response

	// fixed are the request headers without and with a body when no
	// header value is a template (built once: header).
	fixedOnce sync.Once
	fixed     [2]http.Header
}

type httpHeader struct {
	name string
	val  strTmpl
}

// Defaults of HTTP targets.
const (
	DefaultHTTPTimeout = 30 * time.Second
	DefaultRetries     = 2
	DefaultBackoff     = 200 * time.Millisecond
	DefaultMaxBody     = 10 << 20
	maxBackoff         = 10 * time.Second
	maxRetryAfter      = retry.MaxAfter
)

// newHTTPShorthand is the target "http://HOST/PATH": POST {"query", "k"} and
// read the response as an observation.
func newHTTPShorthand(spec string, o Options) (assay.Target, error) {
	u, err := url.Parse(spec)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("target %q: not a valid URL", spec)
	}
	// The spec is what records, reports and `assay runs` show: credentials
	// in it are redacted as in the config.
	h := newHTTP(redact.URL(u), o)
	what := redact.LiteralInURL(spec)
	if what != "" && !o.AllowLiteralSecrets {
		return nil, fmt.Errorf("target %s: literal credential (%s); give it in a target file as ${VAR} (or pass --allow-literal-secrets)", h.spec, what)
	}
	h.secrets.add(urlSecrets(spec, what != "")...)
	h.base = u
	h.steps = []*httpStep{{name: "request", method: http.MethodPost, url: strTmpl{lit: spec}, body: shorthandBody()}}
	h.mapping = defaultMap()
	h.config = map[string]any{"url": redact.URL(u)}
	return h, nil
}

// shorthandBody is {"k": .K, "query": .Query}.
func shorthandBody() *bodyTmpl {
	kT, _ := compileBody(&node{value: "{{.K}}"}, "k")
	qT, _ := compileBody(&node{value: "{{.Query}}"}, "query")
	return objectBody([]string{"k", "query"}, []*bodyTmpl{kT, qT})
}

func newHTTP(spec string, o Options) *HTTP {
	tr := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	h := &HTTP{
		spec:     spec,
		timeout:  DefaultHTTPTimeout,
		retries:  DefaultRetries,
		backoff:  DefaultBackoff,
		maxBody:  DefaultMaxBody,
		keep:     o.Keep,
		suite:    o.Suite,
		secrets:  newSecrets(),
		tr:       tr,
		client:   &http.Client{Transport: tr, CheckRedirect: checkRedirect},
		defaultK: assay.DefaultK,
		variant:  o.Variant,
	}
	if o.Suite != nil && o.Suite.Defaults.K > 0 {
		h.defaultK = o.Suite.Defaults.K
	}
	return h
}

// Secrets returns the values expanded from the environment (and the
// forms derived from them): everything the run must redact.
func (h *HTTP) Secrets() []redact.Secret { return h.secrets.list() }

// Describe returns the target's kind and its configuration as written, with
// credentials redacted.
func (h *HTTP) Describe() assay.TargetInfo {
	cfg, _ := redactConfig(h.config).(map[string]any)
	return assay.TargetInfo{Kind: "http", Spec: h.spec, Config: cfg, Fingerprint: fingerprint(cfg)}
}

// Close releases idle connections.
func (h *HTTP) Close() error {
	h.tr.CloseIdleConnections()
	return nil
}

// Observe runs the case's steps and maps the responses to an observation.
func (h *HTTP) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	trial := assay.TrialFrom(ctx)
	obs := assay.Observation{Case: c.ID, Trial: trial}
	vars := h.caseVars(c)
	resps := make(map[string]*response, len(h.steps))
	start := time.Now()
	var ex exchange
	var err error
	for _, st := range h.steps {
		var r *response
		r, err = h.do(ctx, st, caseData(c, h.defaultK, trial, vars, h.variant), &ex)
		if err != nil {
			if len(h.steps) > 1 {
				err = prefixError(err, fmt.Sprintf("step %q: ", st.name))
			}
			break
		}
		resps[st.name] = r
		if len(st.capture) > 0 {
			if vars, err = h.captureVars(st, r, vars); err != nil {
				break
			}
		}
	}
	total := time.Since(start)
	lat := float64((total - ex.waited).Microseconds()) / 1000
	obs.LatencyMs = &lat
	obs.Attempts = 1 + ex.retries
	if ex.retries > 0 || ex.waited > 0 {
		all := float64(total.Microseconds()) / 1000
		obs.LatencyTotalMs = &all
	}
	if len(h.cleanup) > 0 && !h.keep {
		h.pending.Store(pendingKey(c.ID, trial), vars)
	}
	if err == nil {
		err = applyMap(&obs, h.mapping, resps, h.steps[len(h.steps)-1].name, "response")
	}
	return finish(obs, err)
}

func pendingKey(id string, trial int) string { return id + "\x00" + strconv.Itoa(trial) }

func (h *HTTP) caseVars(c assay.Case) map[string]string {
	if len(h.runVars) == 0 && len(c.Vars) == 0 {
		return nil
	}
	v := make(map[string]string, len(h.runVars)+len(c.Vars))
	for k, x := range h.runVars {
		v[k] = x
	}
	for k, x := range c.Vars {
		v[k] = x
	}
	return v
}

// captureVars returns vars plus the step's captures (a fresh map).
func (h *HTTP) captureVars(st *httpStep, r *response, vars map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(vars)+len(st.capture))
	for k, v := range vars {
		out[k] = v
	}
	var tmp assay.Observation
	for _, f := range st.capture {
		tmp.Fields = nil
		if err := applyMap(&tmp, []mapField{{name: f.name, header: f.header, path: f.path}}, map[string]*response{st.name: r}, st.name, "response"); err != nil {
			return out, prefixError(err, fmt.Sprintf("step %q capture: ", st.name))
		}
		v, ok := tmp.Fields[f.name]
		if !ok {
			return out, assay.Errorf(assay.ErrMalformed, "step %q capture %s: nothing at %s", st.name, f.name, captureSource(f))
		}
		switch x := v.(type) {
		case string:
			out[f.name] = x
		case float64:
			out[f.name] = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			b, _ := json.Marshal(x)
			out[f.name] = string(b)
		}
	}
	return out, nil
}

func captureSource(f mapField) string {
	if f.header != "" {
		return "header " + f.header
	}
	return "path " + strconv.Quote(f.path)
}

func prefixError(err error, prefix string) error {
	e := *assay.AsError(err)
	e.Message = prefix + e.Message
	return &e
}

// Setup runs the setup: steps once, before the cases. A step with
// for_each: corpus is sent once per document of the suite's corpus (.Doc).
// Values captured by setup steps are visible to every case as .Vars.
func (h *HTTP) Setup(ctx context.Context) error {
	vars := map[string]string{}
	var measures map[string]float64
	for _, st := range h.setup {
		if st.forEach == "corpus" {
			if h.suite == nil || len(h.suite.Corpus) == 0 {
				return fmt.Errorf("setup step %q: for_each: corpus, but the suite has no corpus", st.name)
			}
			for i, doc := range h.suite.Corpus {
				d := &tmplData{K: h.defaultK, Tags: map[string]string{}, Vars: vars, Doc: doc, Variant: h.variant}
				if _, err := h.do(ctx, st, d, nil); err != nil {
					return h.secrets.redactError(prefixError(err, fmt.Sprintf("setup step %q (document %d, %s): ", st.name, i+1, doc.ID)))
				}
			}
			continue
		}
		d := &tmplData{K: h.defaultK, Tags: map[string]string{}, Vars: vars, Variant: h.variant}
		r, err := h.do(ctx, st, d, nil)
		if err != nil {
			return h.secrets.redactError(prefixError(err, fmt.Sprintf("setup step %q: ", st.name)))
		}
		if len(st.capture) > 0 {
			if vars, err = h.captureVars(st, r, vars); err != nil {
				return h.secrets.redactError(err)
			}
		}
		if len(st.measure) > 0 {
			if measures, err = readMeasures(st, r, measures); err != nil {
				return h.secrets.redactError(err)
			}
		}
	}
	h.runVars = vars
	h.measures = measures
	return nil
}

// Measures returns the run-level measures the setup steps read (nil when
// none declares measures:).
func (h *HTTP) Measures() map[string]float64 { return h.measures }

// readMeasures adds the step's measures to ms (allocating it). A measure is
// a JSON number, or a number written as a JSON string or a header; a path
// or header that finds nothing, or anything else, is an error of the setup.
func readMeasures(st *httpStep, r *response, ms map[string]float64) (map[string]float64, error) {
	if ms == nil {
		ms = map[string]float64{}
	}
	for _, f := range st.measure {
		fail := func(format string, args ...any) (map[string]float64, error) {
			return ms, assay.Errorf(assay.ErrMalformed, "setup step %q measure %s: %s", st.name, f.name, fmt.Sprintf(format, args...))
		}
		var text string
		if f.header != "" {
			hv := r.header.Values(f.header)
			if len(hv) == 0 {
				return fail("nothing at %s", captureSource(f))
			}
			text = strings.Join(hv, ",")
		} else {
			if err := r.checkJSON("response"); err != nil {
				return ms, prefixError(err, fmt.Sprintf("setup step %q measure %s: ", st.name, f.name))
			}
			res := gjson.GetBytes(r.body, f.path)
			switch {
			case !res.Exists() || res.Type == gjson.Null:
				return fail("nothing at %s", captureSource(f))
			case res.Type == gjson.Number || res.Type == gjson.String:
				text = res.String()
			default:
				return fail("want a number at %s, got %s", captureSource(f), kindOf(res))
			}
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fail("%q at %s is not a finite number", text, captureSource(f))
		}
		ms[f.name] = x
	}
	return ms, nil
}

// Cleanup runs the cleanup: steps for a case after it was graded (also when
// it failed), with the values its steps captured. It does nothing when the
// target was opened with Keep.
func (h *HTTP) Cleanup(ctx context.Context, c assay.Case, obs assay.Observation) error {
	v, _ := h.pending.LoadAndDelete(pendingKey(c.ID, obs.Trial))
	if h.keep || len(h.cleanup) == 0 {
		return nil
	}
	vars, _ := v.(map[string]string)
	if vars == nil {
		vars = h.caseVars(c)
	}
	var errs []error
	for _, st := range h.cleanup {
		if _, err := h.do(ctx, st, caseData(c, h.defaultK, obs.Trial, vars, h.variant), nil); err != nil {
			errs = append(errs, h.secrets.redactError(prefixError(err, fmt.Sprintf("cleanup step %q for case %s: ", st.name, c.ID))))
		}
	}
	return errors.Join(errs...)
}

// exchange counts the retries of one case's requests and the time spent
// waiting before them.
type exchange struct {
	retries int
	waited  time.Duration
}

// do sends one step's request, with retries, and reads the response. ex,
// when not nil, counts the retries made and the backoff waited.
func (h *HTTP) do(ctx context.Context, st *httpStep, d *tmplData, ex *exchange) (*response, error) {
	u, err := st.url.render(d)
	if err != nil {
		return nil, assay.Errorf(assay.ErrMalformed, "building the url: %s", err)
	}
	if h.base != nil && !strings.Contains(u, "://") {
		ref, err := url.Parse(u)
		if err != nil {
			return nil, assay.Errorf(assay.ErrMalformed, "building the url: %s", err)
		}
		u = h.base.ResolveReference(ref).String()
	}
	var body []byte
	if st.body != nil {
		var buf bytes.Buffer
		if err := st.body.render(&buf, d); err != nil {
			return nil, assay.Errorf(assay.ErrMalformed, "building the body: %s", err)
		}
		body = buf.Bytes()
	}
	hdr, err := st.header(d, body != nil)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		if h.limiter != nil {
			if err := h.limiter.wait(ctx); err != nil {
				return nil, ctxError(ctx, err)
			}
		}
		r, retryAfter, err := h.once(ctx, st.method, u, hdr, body)
		if err == nil {
			return r, nil
		}
		if retryAfter < 0 || attempt >= h.retries {
			return nil, err
		}
		wait := h.backoffFor(attempt)
		if retryAfter > wait {
			wait = min(retryAfter, maxRetryAfter)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, err
		}
		t := time.NewTimer(wait)
		waitStart := time.Now()
		select {
		case <-ctx.Done():
			t.Stop()
			if ex != nil {
				ex.waited += time.Since(waitStart)
			}
			return nil, ctxError(ctx, ctx.Err())
		case <-t.C:
		}
		if ex != nil {
			ex.retries++
			ex.waited += time.Since(waitStart)
		}
	}
}

// header is the step's request header for d, with a body or not. When
// no header value is a template it is built once per step (for each of
// the two) and shared by every request: no request changes it.
func (st *httpStep) header(d *tmplData, withBody bool) (http.Header, error) {
	st.fixedOnce.Do(func() {
		for _, hh := range st.headers {
			if hh.val.isTemplate() {
				return
			}
		}
		for i := range st.fixed {
			st.fixed[i], _ = st.buildHeader(nil, i == 1)
		}
	})
	if st.fixed[0] != nil {
		if withBody {
			return st.fixed[1], nil
		}
		return st.fixed[0], nil
	}
	return st.buildHeader(d, withBody)
}

func (st *httpStep) buildHeader(d *tmplData, withBody bool) (http.Header, error) {
	hdr := make(http.Header, len(st.headers)+1)
	for _, hh := range st.headers {
		v, err := hh.val.render(d)
		if err != nil {
			return nil, assay.Errorf(assay.ErrMalformed, "building header %s: %s", hh.name, err)
		}
		hdr.Set(hh.name, v)
	}
	if withBody && !st.rawBody && hdr.Get("Content-Type") == "" {
		hdr.Set("Content-Type", "application/json")
	}
	if hdr.Get("Accept") == "" {
		hdr.Set("Accept", "application/json")
	}
	return hdr, nil
}

func (h *HTTP) backoffFor(attempt int) time.Duration {
	return retry.Backoff(h.backoff, maxBackoff, attempt)
}

// once makes one attempt. retryAfter is < 0 when the failure is not
// transient, otherwise the wait the server asked for (0 if none).
func (h *HTTP) once(ctx context.Context, method, u string, hdr http.Header, body []byte) (*response, time.Duration, error) {
	// The attempt's own deadline, unless the case's comes first (or at
	// the same time): then the attempt ends with the case, and an error
	// is the case's (netError asks ctx first), as it would be under a
	// later attempt deadline; no timer is made for a deadline that cannot
	// be reached.
	actx := ctx
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > h.timeout {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, h.timeout)
		defer cancel()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, u, rd)
	if err != nil {
		return nil, -1, assay.Errorf(assay.ErrMalformed, "building the request: %s", err)
	}
	// Neither the client nor the transport changes a request's header:
	// hdr is shared, not copied (httpStep.header).
	req.Header = hdr
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, transientDelay(err), h.netError(ctx, actx, method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, h.maxBody+1))
	if err != nil {
		return nil, -1, h.netError(ctx, actx, method, req.URL, err)
	}
	if int64(len(b)) > h.maxBody {
		return nil, -1, assay.Errorf(assay.ErrMalformed, "%s %s: response body exceeds max_body (%s)", method, shortURL(req.URL), formatSize(h.maxBody))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &assay.Error{Class: assay.ErrHTTPStatus, Status: resp.StatusCode,
			Message: fmt.Sprintf("%s %s: %s", method, shortURL(req.URL), resp.Status)}
		// The body is redacted whole and only then cut: a cut inside a
		// token would leave a part of it that no longer matches.
		if binary(b) {
			e.Message += fmt.Sprintf(": (binary body, %d bytes)", len(b))
		} else if s := strings.TrimSpace(h.secrets.redactor().Head(string(b), 200)); s != "" {
			e.Message += ": " + strings.Join(strings.Fields(s), " ")
		}
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return nil, retry.After(resp.Header.Get("Retry-After")), e
		}
		return nil, -1, e
	}
	return &response{body: b, header: resp.Header, red: h.secrets.redactor()}, 0, nil
}

// checkRedirect follows a redirect only on the same host (scheme and
// port included, except http to https). A redirect to another host is
// refused, not followed with fewer headers: net/http drops only
// Authorization, WWW-Authenticate and Cookie there, so X-Api-Key and every
// other configured header, and a 307/308's body, would reach a host the
// target file never named.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0].URL
	sameHost := strings.EqualFold(req.URL.Host, first.Host)
	upgrade := first.Scheme == "http" && req.URL.Scheme == "https" && strings.EqualFold(req.URL.Hostname(), first.Hostname())
	if (sameHost && req.URL.Scheme == first.Scheme) || upgrade {
		return nil
	}
	return fmt.Errorf("redirect to %s refused: it leaves %s://%s, and the configured headers would go with it; point the target at the final url", shortURL(req.URL), first.Scheme, first.Host)
}

func shortURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	return c.String()
}

// netError classes a client error: the run's context ending is canceled (or
// timeout when it was a deadline), the attempt's deadline is timeout, the
// rest is transport.
func (h *HTTP) netError(ctx, actx context.Context, method string, u *url.URL, err error) error {
	if ctx.Err() != nil {
		return ctxError(ctx, ctx.Err())
	}
	if actx.Err() == context.DeadlineExceeded {
		return assay.Errorf(assay.ErrTimeout, "%s %s: no response within %s", method, shortURL(u), h.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return assay.Errorf(assay.ErrTransport, "%s %s: %s", method, shortURL(u), err.Error())
}

// ctxError classes the end of the caller's context.
func ctxError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return assay.Errorf(assay.ErrTimeout, "case deadline exceeded")
	}
	return assay.Errorf(assay.ErrCanceled, "canceled")
}

// transientDelay is 0 for a connection failure worth retrying, -1 otherwise.
func transientDelay(err error) time.Duration {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return -1
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return -1
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return 0
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return 0
	}
	return -1
}

// limiter spaces requests evenly (rate: N/s).
type limiter struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

func (l *limiter) wait(ctx context.Context) error {
	l.mu.Lock()
	now := time.Now()
	if l.next.Before(now) {
		l.next = now
	}
	at := l.next
	l.next = l.next.Add(l.interval)
	l.mu.Unlock()
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// parseRate reads "20/s", "600/m", "5/min", "1/500ms".
func parseRate(s string) (time.Duration, error) {
	n, per, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, fmt.Errorf("rate %q: want N/s, N/m or N/DURATION", s)
	}
	count, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
	if err != nil || count <= 0 {
		return 0, fmt.Errorf("rate %q: want a positive number of requests", s)
	}
	var unit time.Duration
	switch strings.TrimSpace(per) {
	case "s", "sec", "second":
		unit = time.Second
	case "m", "min", "minute":
		unit = time.Minute
	case "h", "hour":
		unit = time.Hour
	default:
		if unit, err = time.ParseDuration(strings.TrimSpace(per)); err != nil || unit <= 0 {
			return 0, fmt.Errorf("rate %q: unknown unit %q (s, m, h or a duration)", s, per)
		}
	}
	return time.Duration(float64(unit) / count), nil
}

// parseSize reads "10MiB", "512KB", "1GiB", "2048": a whole number of
// bytes from 1 to boundedfile.MaxBody. A fraction of a byte ("0.5B",
// "1.0001KB") and a larger size are errors, not a rounded or wrapped value.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, ok := new(big.Rat).SetString(t[:i])
	if i == 0 || !ok || num.Sign() <= 0 || strings.Count(t[:i], ".") > 1 {
		return 0, fmt.Errorf("size %q: want a number with a unit (10MiB, 512KB)", s)
	}
	mult := map[string]int64{"": 1, "b": 1, "kb": 1e3, "k": 1e3, "mb": 1e6, "m": 1e6, "gb": 1e9, "g": 1e9,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}[strings.ToLower(strings.TrimSpace(t[i:]))]
	if mult == 0 {
		return 0, fmt.Errorf("size %q: unknown unit %q (B, KB, KiB, MB, MiB, GB, GiB)", s, strings.TrimSpace(t[i:]))
	}
	v := num.Mul(num, new(big.Rat).SetInt64(mult))
	if !v.IsInt() {
		return 0, fmt.Errorf("size %q: not a whole number of bytes", s)
	}
	if v.Cmp(new(big.Rat).SetInt64(boundedfile.MaxBody)) > 0 {
		return 0, fmt.Errorf("size %q: larger than the %s limit", s, formatSize(boundedfile.MaxBody))
	}
	return v.Num().Int64(), nil
}

func formatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

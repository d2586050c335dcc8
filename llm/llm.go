package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/assay-eval/assay"
	backoff "github.com/assay-eval/assay/internal/retry"
	"github.com/assay-eval/assay/redact"
)

// Defaults and bounds of an Endpoint.
const (
	DefaultTimeout = 60 * time.Second
	DefaultBackoff = 500 * time.Millisecond
	DefaultMaxBody = 32 << 20
	MaxRetries     = 10
	MaxBackoff     = 10 * time.Second
	MaxRetryAfter  = backoff.MaxAfter
	// snippetLen is how much of an error body an Error shows.
	snippetLen = 200
)

// Endpoint is one OpenAI-compatible endpoint and model. Its zero fields
// take the defaults above. It is safe for concurrent use once filled; do
// not change its fields while calls are in flight.
type Endpoint struct {
	URL     string        // base URL, OpenAI convention: requests go to URL+"/chat/completions", URL+"/embeddings"
	Model   string        // sent as "model"
	APIKey  string        // sent as "Authorization: Bearer"; never in errors, logs, keys
	KeyName string        // how the key is shown where it was redacted: ${KeyName}; "" shows [redacted]
	Timeout time.Duration // per attempt; 0 = DefaultTimeout
	Retries int           // extra attempts on 429/5xx/408/transport errors and attempt timeouts (0 to MaxRetries)
	Backoff time.Duration // wait before the first retry, doubled each retry (jittered, capped at MaxBackoff); 0 = DefaultBackoff
	MaxBody int64         // largest response body read; 0 = DefaultMaxBody
	Client  *http.Client  // nil: a shared default with sane limits (no redirects followed)
	// Secrets, when set, are redacted from errors besides the key (the
	// run's secrets: an endpoint that echoes the request would otherwise
	// show what the prompt carried).
	Secrets *redact.Redactor
}

// Usage is the token count an endpoint reports (zeros when it reports none).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user, assistant
	Content string `json:"content"`
}

// ChatRequest is one chat completion request.
type ChatRequest struct {
	Messages    []Message
	Temperature float64
	Seed        *int // nil: not sent
	MaxTokens   int  // 0: not sent
	// JSONSchema, when set, asks for a response_format of type json_schema
	// with this schema (strict); otherwise JSONMode asks for json_object.
	JSONSchema json.RawMessage
	SchemaName string // the json_schema's name; "" = "response"
	JSONMode   bool
	// Attempted, when set, is called after every request sent, with its
	// error (nil when it was answered 2xx) and whether a retry is to be
	// sent; when it is, false sends none and Chat returns that error. It
	// lets a caller book each retry against a budget and stop retrying an
	// endpoint it has given up on.
	Attempted func(err error, retry bool) (ok bool)
}

// ChatResponse is the first choice of a chat completion.
type ChatResponse struct {
	Content      string
	FinishReason string // "stop", "length", ... as the endpoint said ("" if it did not)
	Model        string // the model the endpoint says answered ("" if it did not)
	Usage        Usage
	Attempts     int           // requests sent
	Latency      time.Duration // wall time of the call, retries and waits included
}

// EmbedResponse holds one vector per input, in input order.
type EmbedResponse struct {
	Vectors  [][]float32
	Model    string
	Usage    Usage
	Attempts int
}

// Error is every failure of this package.
type Error struct {
	Class     assay.ErrorClass // timeout, transport, http_status, malformed, canceled
	Status    int              // HTTP status; 0 when no response was read
	Msg       string           // one line, redacted
	Retryable bool             // a later attempt might succeed
}

func (e *Error) Error() string { return e.Msg }

// AsObservationError converts e to an observation's error record.
func (e *Error) AsObservationError() *assay.Error {
	return &assay.Error{Class: e.Class, Status: e.Status, Message: e.Msg}
}

// defaultClient is shared so that connections are reused across Endpoints.
var defaultClient = &http.Client{
	Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// Chat sends one chat completion request and returns the first choice.
func (e *Endpoint) Chat(ctx context.Context, r ChatRequest) (ChatResponse, error) {
	if len(r.Messages) == 0 {
		return ChatResponse{}, &Error{Class: assay.ErrMalformed, Msg: "chat: no messages"}
	}
	body := chatBody{Model: e.Model, Messages: r.Messages, Temperature: r.Temperature, Seed: r.Seed, MaxTokens: r.MaxTokens}
	switch {
	case len(r.JSONSchema) > 0:
		if !json.Valid(r.JSONSchema) {
			return ChatResponse{}, &Error{Class: assay.ErrMalformed, Msg: "chat: the json schema is not valid JSON"}
		}
		name := r.SchemaName
		if name == "" {
			name = "response"
		}
		body.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchemaFormat{Name: name, Schema: r.JSONSchema, Strict: true}}
	case r.JSONMode:
		body.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	start := time.Now()
	var raw json.RawMessage
	n, err := e.post(ctx, "/chat/completions", body, &raw, r.Attempted)
	out := ChatResponse{Attempts: n}
	if err != nil {
		out.Latency = time.Since(start)
		return out, err
	}
	var cr chatResult
	if err := decodeChat(raw, &cr); err != nil {
		out.Latency = time.Since(start)
		return out, e.errorf(assay.ErrMalformed, 0, false, "POST %s: %s", e.short("/chat/completions"), err)
	}
	out.Content, out.FinishReason, out.Model, out.Usage = cr.content, cr.finish, cr.model, cr.usage
	out.Latency = time.Since(start)
	return out, nil
}

// Embed asks for one vector per input; dimensions, when > 0, is sent (for
// models that can shorten their vectors) and every vector must have it.
// No inputs make no request.
func (e *Endpoint) Embed(ctx context.Context, inputs []string, dimensions int) (EmbedResponse, error) {
	if len(inputs) == 0 {
		return EmbedResponse{}, nil
	}
	if dimensions < 0 {
		return EmbedResponse{}, &Error{Class: assay.ErrMalformed, Msg: fmt.Sprintf("embed: dimensions %d: must be 0 (the model's own) or more", dimensions)}
	}
	body := embedBody{Model: e.Model, Input: inputs, Dimensions: dimensions, EncodingFormat: "float"}
	var raw json.RawMessage
	n, err := e.PostJSON(ctx, "/embeddings", body, &raw)
	out := EmbedResponse{Attempts: n}
	if err != nil {
		return out, err
	}
	if err := decodeEmbed(raw, len(inputs), dimensions, &out); err != nil {
		return EmbedResponse{Attempts: n}, e.errorf(assay.ErrMalformed, 0, false, "POST %s: %s", e.short("/embeddings"), err)
	}
	return out, nil
}

// PostJSON posts req encoded as JSON to URL+path and decodes the 2xx
// answer into resp (a pointer; nil discards the body), with the retries,
// limits and redacted errors described in the package doc. attempts is the
// number of requests sent.
func (e *Endpoint) PostJSON(ctx context.Context, path string, req, resp any) (attempts int, err error) {
	return e.post(ctx, path, req, resp, nil)
}

// post is PostJSON with ChatRequest.Attempted's hook (nil: none).
func (e *Endpoint) post(ctx context.Context, path string, req, resp any, attempted func(error, bool) bool) (attempts int, err error) {
	u, err := e.endpointURL(path)
	if err != nil {
		return 0, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return 0, e.errorf(assay.ErrMalformed, 0, false, "POST %s: encoding the request: %s", e.short(path), err)
	}
	retries := min(max(e.Retries, 0), MaxRetries)
	for attempt := 0; ; attempt++ {
		b, retryAfter, err := e.once(ctx, u, path, body)
		attempts++
		if err == nil {
			if attempted != nil {
				attempted(nil, false)
			}
			if resp == nil {
				return attempts, nil
			}
			if err := json.Unmarshal(b, resp); err != nil {
				return attempts, e.errorf(assay.ErrMalformed, 0, false, "POST %s: response is not the JSON expected: %s", e.short(path), jsonErr(err))
			}
			return attempts, nil
		}
		var le *Error
		retry := errors.As(err, &le) && le.Retryable && attempt < retries
		var wait time.Duration
		if retry {
			base := e.Backoff
			if base <= 0 {
				base = DefaultBackoff
			}
			wait = backoff.Backoff(base, MaxBackoff, attempt)
			if retryAfter > wait {
				wait = min(retryAfter, MaxRetryAfter)
			}
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
				retry = false
			}
		}
		if attempted != nil && !attempted(err, retry) {
			retry = false
		}
		if !retry {
			return attempts, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempts, e.ctxError(ctx)
		case <-t.C:
		}
	}
}

// once makes one attempt; retryAfter is what a Retry-After header asked for.
func (e *Endpoint) once(ctx context.Context, u, path string, body []byte) (b []byte, retryAfter time.Duration, err error) {
	if ctx.Err() != nil {
		return nil, 0, e.ctxError(ctx)
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, 0, e.errorf(assay.ErrMalformed, 0, false, "POST %s: building the request: %s", e.short(path), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	client := e.Client
	if client == nil {
		client = defaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, 0, e.netError(ctx, actx, path, timeout, err)
	}
	defer res.Body.Close()
	limit := e.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	b, err = io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, 0, e.netError(ctx, actx, path, timeout, err)
	}
	if int64(len(b)) > limit {
		return nil, 0, e.errorf(assay.ErrMalformed, res.StatusCode, false, "POST %s: response body larger than %d bytes", e.short(path), limit)
	}
	if res.StatusCode >= 300 && res.StatusCode <= 399 {
		loc := res.Header.Get("Location")
		if lu, err := url.Parse(loc); err == nil {
			loc = shortURL(lu)
		}
		return nil, 0, e.errorf(assay.ErrHTTPStatus, res.StatusCode, false, "POST %s: %s to %s not followed: set the url to the address it points to", e.short(path), res.Status, loc)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		msg := fmt.Sprintf("POST %s: %s", e.short(path), res.Status)
		if s := e.snippet(b); s != "" {
			msg += ": " + s
		}
		retry := res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusRequestTimeout || res.StatusCode >= 500
		return nil, backoff.After(res.Header.Get("Retry-After")), e.errorf(assay.ErrHTTPStatus, res.StatusCode, retry, "%s", msg)
	}
	return b, 0, nil
}

// errorf builds an *Error whose message has the key redacted.
func (e *Endpoint) errorf(class assay.ErrorClass, status int, retry bool, format string, args ...any) *Error {
	return &Error{Class: class, Status: status, Msg: e.redact(fmt.Sprintf(format, args...)), Retryable: retry}
}

// redactor is the key and Secrets.
func (e *Endpoint) redactor() *redact.Redactor {
	r := redact.New(e.Secrets.Secrets()...)
	if e.APIKey != "" {
		r.Add(redact.Secret{Name: e.KeyName, Value: e.APIKey})
	}
	return r
}

// redact takes the key and Secrets out of s.
func (e *Endpoint) redact(s string) string {
	s = e.redactor().String(s)
	// A key shorter than redact.MinLen is not a secret to redact, but it
	// must still not be shown.
	if e.APIKey != "" && len(e.APIKey) < redact.MinLen {
		s = strings.ReplaceAll(s, e.APIKey, redact.Redacted)
	}
	return s
}

func (e *Endpoint) ctxError(ctx context.Context) *Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Class: assay.ErrTimeout, Msg: "deadline exceeded"}
	}
	return &Error{Class: assay.ErrCanceled, Msg: "canceled"}
}

// netError classes a client error: the caller's context ending, the
// attempt's deadline (retryable), a connection failure (retryable) or
// another transport error.
func (e *Endpoint) netError(ctx, actx context.Context, path string, timeout time.Duration, err error) *Error {
	if ctx.Err() != nil {
		return e.ctxError(ctx)
	}
	if actx.Err() == context.DeadlineExceeded {
		return e.errorf(assay.ErrTimeout, 0, true, "POST %s: no response within %s", e.short(path), timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return e.errorf(assay.ErrTransport, 0, transient(err), "POST %s: %s", e.short(path), err)
}

// transient reports whether a transport error is worth retrying.
func transient(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func (e *Endpoint) endpointURL(path string) (string, error) {
	base := strings.TrimRight(strings.TrimSpace(e.URL), "/")
	u, err := url.Parse(base)
	if base == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := base
		if err == nil && u != nil {
			shown = shortURL(u)
		}
		return "", e.errorf(assay.ErrMalformed, 0, false, "url %q: want an http:// or https:// base url such as http://127.0.0.1:11434/v1", shown)
	}
	if u.User != nil {
		return "", e.errorf(assay.ErrMalformed, 0, false, "url %s: user info in the url is not sent: give the key as api_key", shortURL(u))
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return base + path, nil
}

// short is the request's url as shown in errors: no user info or query.
func (e *Endpoint) short(path string) string {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(e.URL), "/") + path)
	if err != nil {
		return path
	}
	return shortURL(u)
}

func shortURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	c.Fragment = ""
	return c.String()
}

// snippet is the start of an error body on one line, redacted whole before
// it is cut (a cut inside the key would leave its start); binary shows its
// size.
func (e *Endpoint) snippet(b []byte) string {
	if bytes.IndexByte(b, 0) >= 0 {
		return fmt.Sprintf("(binary body, %d bytes)", len(b))
	}
	s := e.redactor().Head(strings.Join(strings.Fields(string(b)), " "), snippetLen)
	return strings.ToValidUTF8(e.redact(s), "?")
}

// jsonErr shortens an encoding/json error to one line.
func jsonErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s has a %s where %s was expected", fieldOr(te.Field), te.Value, te.Type)
	}
	return err.Error()
}

func fieldOr(f string) string {
	if f == "" {
		return "the body"
	}
	return "field " + f
}

// Package llm is assay's client for OpenAI-compatible HTTP endpoints
// (OpenAI, Ollama, vLLM, llama.cpp server, LiteLLM, ...): chat completions
// for the model judge and embeddings for dense retrieval, over plain
// net/http with no SDK. It does not read the environment, print or log:
// the caller fills an Endpoint and gets data and errors back.
//
// # Requests
//
// Endpoint.URL is a base URL in the OpenAI convention: Chat posts to
// URL+"/chat/completions", Embed to URL+"/embeddings", and PostJSON to
// URL+path for anything else (a /rerank endpoint). A trailing slash on the
// URL is dropped. The key, when set, is sent as "Authorization: Bearer KEY"
// and never appears in an error, a message or anything this package
// returns: error snippets of response bodies are redacted (package redact)
// and shown as ${KeyName}, or [redacted] when KeyName is empty. A snippet
// is redacted whole before it is cut to 200 bytes, so a cut inside the key
// leaves none of it; Endpoint.Secrets (the run's secrets) are redacted the
// same way, for an endpoint that echoes the prompt it was sent.
//
// Redirects are not followed: a 3xx answer is an error that names where it
// pointed, since an API client's POST and its Authorization header must not
// move to another address behind the user's back.
//
// A chat request always sends temperature (0 is meaningful: the judge's
// default), and sends seed, max_tokens and response_format only when set:
// JSONSchema gives {"type": "json_schema", "json_schema": {"name": ...,
// "schema": ..., "strict": true}}, JSONMode alone gives {"type":
// "json_object"}.
//
// # Retries and limits
//
// Each attempt has its own deadline (Timeout, default DefaultTimeout). A
// transport failure (connection refused or reset), a 408, 429 or 5xx
// answer, or an attempt that timed out is retried up to Retries more times
// (0 to MaxRetries), waiting Backoff (default DefaultBackoff) doubled at
// each retry with jitter, capped at MaxBackoff; a Retry-After header asks
// for longer and is honoured up to MaxRetryAfter. A wait that would pass
// the caller's context deadline is not started. Every other failure (4xx,
// a malformed body) is returned at once. A chat request's Attempted hook
// sees each request's outcome and may refuse a retry (the judge books each
// retry against its max_calls and stops retrying a dead endpoint).
//
// A response body is read up to MaxBody bytes (default DefaultMaxBody);
// a longer one is an error, never read whole. A body that is not the JSON
// expected (not JSON, no choices, a vector count or dimension that does not
// match) is an *Error of class malformed, never a panic.
//
// # Errors
//
// Every failure is an *Error: its Class (an assay.ErrorClass: timeout,
// transport, http_status, malformed, canceled), the HTTP Status when there
// was one, a one-line redacted Msg, and Retryable, whether a later attempt
// might succeed (the judge uses it to tell a flaky endpoint from a bad
// request).
//
// Latency in ChatResponse is the wall time of the whole call, retries and
// their waits included; Attempts counts the requests sent.
package llm

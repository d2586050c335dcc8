// Package judgetest is the deterministic scoring rule of the judge's
// tests: a stand-in judge scores an answer from markers in it, so a test
// can say what each case should get. It is used with llmtest's server (Go
// tests) and by Handler, which serves it on an address a testscript
// chooses.
//
// The rule, applied to the answer part of the prompt (package judge's
// template):
//
//	[judge:X]     every criterion scores X (a number), e.g. [judge:0.4]
//	[judge:bad]   the reply is not JSON
//	[judge:range] every criterion scores 7 (out of any 0-1 scale)
//	[judge:flaky] every criterion scores 0.6 with an even seed, 0.9 with an odd one
//	[judge:verbose] every criterion scores 0.5, 0.9 when the answer ends with
//	              judge.VerbosityPad (a judge that likes longer answers)
//	[judge:echo]  0.8, and (Handler only) the reasoning quotes the Authorization
//	              header received: a test that the key is redacted wherever
//	              the judge's words go
//	(none)        every criterion scores 0.8
//
// The reasoning names the marker found ("stand-in rule: [judge:0.4]").
package judgetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/assay-eval/assay/judge"
	"github.com/assay-eval/assay/llm"
	"github.com/assay-eval/assay/llm/llmtest"
)

var (
	marker   = regexp.MustCompile(`\[judge:([a-z0-9.]+)\]`)
	criteria = regexp.MustCompile(`"([a-z][a-z0-9_]*)": <`)
)

// Rule answers one chat request by the rule of the package doc.
func Rule(req llmtest.ChatRequest) (string, llm.Usage) {
	prompt := req.Prompt()
	answer := prompt
	if i := strings.Index(answer, "Answer:\n"); i >= 0 {
		answer = answer[i+len("Answer:\n"):]
	}
	if i := strings.Index(answer, "\n\nRetrieved passages:"); i >= 0 {
		answer = answer[:i]
	}
	score, why := 0.8, "no marker"
	if m := marker.FindStringSubmatch(answer); m != nil {
		why = m[0]
		switch m[1] {
		case "bad":
			return "I would rate this answer highly.", llm.Usage{}
		case "range":
			score = 7
		case "verbose":
			score = 0.5
			if strings.Contains(answer, judge.VerbosityPad) {
				score = 0.9
			}
		case "flaky":
			score = 0.6
			if req.Seed != nil && *req.Seed%2 != 0 {
				score = 0.9
			}
		default:
			if f, err := strconv.ParseFloat(m[1], 64); err == nil {
				score = f
			}
		}
	}
	out := map[string]any{"reasoning": "stand-in rule: " + why}
	for _, c := range criteria.FindAllStringSubmatch(prompt, -1) {
		out[c[1]] = score
	}
	b, _ := json.Marshal(out)
	return string(b), llm.Usage{}
}

// Handler serves POST /v1/chat/completions with Rule and writes one line
// per request to log ("POST /v1/chat/completions auth=true passages=2
// without_text=0": whether an Authorization header came, how many
// passages the prompt lists and how many of them carry no text), for
// scripts that count the requests a run sent and check what they held. Usage is counted as llmtest does (a
// token per word).
func Handler(log io.Writer) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		var req llmtest.ChatRequest
		ok := r.URL.Path == "/v1/chat/completions" && json.Unmarshal(body, &req) == nil
		n, texts := Passages(req.Prompt())
		mu.Lock()
		fmt.Fprintf(log, "%s %s auth=%t passages=%d without_text=%d\n", r.Method, r.URL.Path, r.Header.Get("Authorization") != "", n, n-texts)
		mu.Unlock()
		if !ok {
			http.Error(w, `{"error": {"message": "want POST /v1/chat/completions"}}`, http.StatusBadRequest)
			return
		}
		content, _ := Rule(req)
		if strings.Contains(req.Prompt(), "[judge:echo]") {
			var v map[string]any
			json.Unmarshal([]byte(content), &v)
			v["reasoning"] = "stand-in rule: [judge:echo] " + r.Header.Get("Authorization")
			b, _ := json.Marshal(v)
			content = string(b)
		}
		pt, ct := len(strings.Fields(req.Prompt())), len(strings.Fields(content))
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"model":   req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
		})
	})
}

var passageHead = regexp.MustCompile(`^\[[0-9]+\] `)

// Passages counts the passages the prompt's "Retrieved passages" block
// lists, and those of them followed by a line of text (package judge's
// template: "[i] id (title)", then the text when there is one).
func Passages(prompt string) (n, texts int) {
	_, block, ok := strings.Cut(prompt, "Retrieved passages:\n")
	if !ok {
		return 0, 0
	}
	lines := strings.Split(block, "\n")
	if len(lines) < 2 {
		return 0, 0
	}
	end := strings.TrimPrefix(lines[0], "<<<") + ">>>"
	lines = lines[1:]
	for i, l := range lines {
		if l == end {
			break
		}
		if passageHead.MatchString(l) {
			n++
			if next := lines[min(i+1, len(lines)-1)]; i+1 < len(lines) && next != end && !passageHead.MatchString(next) && !strings.HasSuffix(next, " more not shown)") {
				texts++
			}
		}
	}
	return n, texts
}

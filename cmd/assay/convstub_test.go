package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// convStub is the handler of the testscript program `convstub ADDR LOG`
// (serveStub): a stand-in chat service on ADDR (127.0.0.1 only) for
// conversation suites, until SIGINT.
// POST /chat takes {"case": ID, "turn": N, "messages": [...]}, the
// OpenAI-style history followed by the turn's user message, and answers
// in the observation format. It checks that it received the history: the
// messages alternate user and assistant, hold N user messages, and each
// assistant message is the answer it gave to the messages before it; a
// request that fails the check gets 400 "history: ...". It answers from
// the history too: a follow-up naming only a plan ("and the team plan?")
// is answered about the topic of an earlier message. A message holding
// "FAIL" gets a 500. LOG gets one line per request: case, turn, number of
// messages and the verdict.
func convStub(log io.Writer) http.Handler {
	var mu sync.Mutex
	logf := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(log, format+"\n", a...)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Case     string            `json:"case"`
			Turn     int               `json:"turn"`
			Messages []convStubMessage `json:"messages"`
		}
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := json.Unmarshal(b, &req); err != nil || r.URL.Path != "/chat" {
			http.Error(w, "want POST /chat with a JSON body", http.StatusBadRequest)
			return
		}
		if msg := convStubCheck(req.Turn, req.Messages); msg != "" {
			logf("%s turn %d messages %d: history: %s", req.Case, req.Turn, len(req.Messages), msg)
			http.Error(w, "history: "+msg, http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1].Content
		if strings.Contains(last, "FAIL") {
			logf("%s turn %d messages %d: failed on purpose", req.Case, req.Turn, len(req.Messages))
			http.Error(w, "failed on purpose", http.StatusInternalServerError)
			return
		}
		logf("%s turn %d messages %d: ok", req.Case, req.Turn, len(req.Messages))
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(convStubObservation(req.Messages))
	})
}

type convStubMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// convStubCheck says what is wrong with the messages of turn N ("" when
// nothing is): the history is the earlier turns, user then assistant,
// each answer the stub's own (an errored turn leaves its user message
// without an answer).
func convStubCheck(turn int, msgs []convStubMessage) string {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" {
		return "the last message is not the user's"
	}
	users := 0
	for i, m := range msgs {
		switch m.Role {
		case "user":
			users++
		case "assistant":
			if i == 0 || msgs[i-1].Role != "user" {
				return fmt.Sprintf("message %d: an answer that follows no question", i+1)
			}
			if want := convStubObservation(msgs[:i]).Answer; m.Content != want {
				return fmt.Sprintf("message %d: answer %q is not the one given (%q)", i+1, m.Content, want)
			}
		default:
			return fmt.Sprintf("message %d: role %q", i+1, m.Role)
		}
	}
	if users != turn {
		return fmt.Sprintf("%d user messages for turn %d", users, turn)
	}
	return ""
}

type convStubCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args,omitempty"`
}

type convStubObs struct {
	Answer    string `json:"answer"`
	Retrieved []struct {
		ID    string  `json:"id"`
		Score float64 `json:"score"`
	} `json:"retrieved,omitempty"`
	Tools []convStubCall `json:"tools,omitempty"`
}

// convStubObservation answers the last user message of msgs, reading the
// topic of a follow-up from the earlier user messages.
func convStubObservation(msgs []convStubMessage) convStubObs {
	last := strings.ToLower(msgs[len(msgs)-1].Content)
	topic := ""
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		c := strings.ToLower(m.Content)
		switch {
		case strings.Contains(c, "cost") || strings.Contains(c, "price"):
			topic = "price"
		case strings.Contains(c, "kostet") || strings.Contains(c, "preis"):
			topic = "preis"
		case strings.Contains(c, "refund"):
			topic = "refund"
		}
	}
	var o convStubObs
	hit := func(id string) {
		o.Retrieved = append(o.Retrieved, struct {
			ID    string  `json:"id"`
			Score float64 `json:"score"`
		}{id, 1})
	}
	team := strings.Contains(last, "team")
	switch topic {
	case "price":
		if team {
			o.Answer = "The team plan costs 50 dollars a month per seat."
			hit("team")
		} else {
			o.Answer = "The pro plan costs 20 dollars a month."
			hit("pro")
		}
	case "preis":
		if team {
			o.Answer = "Der Team-Tarif kostet 50 Euro pro Platz."
			hit("team")
		} else {
			o.Answer = "Der Pro-Tarif kostet 20 Euro im Monat."
			hit("pro")
		}
	case "refund":
		o.Tools = []convStubCall{{Name: "search", Args: map[string]any{"q": "refund policy", "k": 3}}}
		if team {
			o.Tools = append(o.Tools, convStubCall{Name: "get_doc", Args: map[string]any{"id": "refunds-team"}})
			o.Answer = "Team plans are refunded pro rata."
		} else {
			o.Tools = append(o.Tools, convStubCall{Name: "get_doc", Args: map[string]any{"id": "refunds"}})
			o.Answer = "Refunds are possible within 30 days."
		}
		hit("refunds")
	default:
		o.Answer = "I don't know what you mean."
	}
	return o
}

package llmtest

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/assay-eval/assay/internal/hybridtest"
	"github.com/assay-eval/assay/llm"
)

// Main is the stand-in as a program, for testscripts (which cannot wait
// for a background server):
//
//	llmtest [--key K] [--chat TEXT] [--fail N:FAULT] [--requests FILE] [--vectors hash|concepts] -- CMD ARGS...
//
// serves on a free 127.0.0.1 port, runs CMD with LLMTEST_URL set to the
// base url (ending in /v1), and returns CMD's exit status. Chat answers
// TEXT, or by default "echo: " and the last message's content; embeddings
// and rerank take the defaults (HashVector, Overlap), or with --vectors
// concepts the cross-language vectors and rerank scores of
// internal/hybridtest (the builtin:hybrid scripts). --key makes every
// request without "Authorization: Bearer K" a 401; --fail answers the
// first N requests with FAULT: a status (2:429, 1:500), "malformed" (a 200
// whose body is not JSON) or a delay ("slow=2s", then the normal answer). --requests writes, when CMD is done, one
// line per path with its request count ("/chat/completions 3") and one
// "authorized N" line counting requests that carried the key, so a script
// can check what was sent and that a second, cached run sent nothing.
func Main(args []string, stdout, stderr io.Writer, environ []string) int {
	fs := flag.NewFlagSet("llmtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	key := fs.String("key", "", "bearer `KEY` every request must carry")
	chat := fs.String("chat", "", "the chat answer `TEXT` (default: echo the last message)")
	fail := fs.String("fail", "", "answer the first `N:FAULT` requests with FAULT: a status (2:429), malformed, or slow=DURATION")
	reqs := fs.String("requests", "", "write the request counts to `FILE` when CMD is done")
	vectors := fs.String("vectors", "hash", "embeddings and rerank scores: hash (HashVector, Overlap) or concepts (internal/hybridtest: words of several languages that mean the same share a dimension)")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 || (*vectors != "hash" && *vectors != "concepts") {
		fmt.Fprintln(stderr, "usage: llmtest [--key K] [--chat TEXT] [--fail N:FAULT] [--requests FILE] [--vectors hash|concepts] -- CMD ARGS...")
		return 2
	}
	h := Handlers{Chat: func(r ChatRequest) (string, llm.Usage) {
		if *chat != "" {
			return *chat, llm.Usage{}
		}
		if len(r.Messages) == 0 {
			return "echo:", llm.Usage{}
		}
		return "echo: " + r.Messages[len(r.Messages)-1].Content, llm.Usage{}
	}}
	if *vectors == "concepts" {
		h.Embed, h.Rerank = hybridtest.Vector, hybridtest.Rerank
	}
	s := Start(h)
	defer s.Close()
	s.mu.Lock() // the server's goroutines read Key under mu
	s.Key = *key
	s.mu.Unlock()
	if *fail != "" {
		f, err := parseFault(*fail)
		if err != nil {
			fmt.Fprintf(stderr, "llmtest: --fail %q: %v\n", *fail, err)
			return 2
		}
		s.Inject(f.n, f.f)
	}
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Env = append(environ, "LLMTEST_URL="+s.URL)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintf(stderr, "llmtest: %v\n", err)
			return 1
		}
		code = ee.ExitCode()
	}
	if *reqs != "" {
		var b strings.Builder
		for _, p := range []string{ChatPath, EmbedPath, RerankPath} {
			fmt.Fprintf(&b, "%s %d\n", p, s.Count(p))
		}
		authorized := 0
		for _, r := range s.Requests() {
			if *key != "" && r.Authorization == "Bearer "+*key {
				authorized++
			}
		}
		fmt.Fprintf(&b, "authorized %d\n", authorized)
		if err := os.WriteFile(*reqs, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintf(stderr, "llmtest: %v\n", err)
			return 1
		}
	}
	return code
}

type countedFault struct {
	n int
	f Fault
}

// parseFault reads --fail's N:FAULT.
func parseFault(s string) (countedFault, error) {
	n, what, ok := strings.Cut(s, ":")
	ni, err := strconv.Atoi(n)
	if !ok || err != nil || ni < 0 {
		return countedFault{}, errors.New("want N:FAULT, e.g. 2:429, 1:malformed, 1:slow=2s")
	}
	switch {
	case what == "malformed":
		return countedFault{ni, Fault{Status: 200, Body: Malformed}}, nil
	case strings.HasPrefix(what, "slow="):
		d, err := time.ParseDuration(strings.TrimPrefix(what, "slow="))
		if err != nil || d <= 0 {
			return countedFault{}, errors.New("slow=DURATION wants a positive Go duration, e.g. slow=2s")
		}
		return countedFault{ni, Fault{Delay: d}}, nil
	}
	st, err := strconv.Atoi(what)
	if err != nil || st < 100 || st > 599 {
		return countedFault{}, errors.New("want N:FAULT, e.g. 2:429, 1:malformed, 1:slow=2s")
	}
	return countedFault{ni, Fault{Status: st}}, nil
}

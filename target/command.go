package target

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
)

// Command drives a system under test that is a program.
//
// One-shot (command: [prog, args...] or the spec command:'prog args'): one
// process per case. Arguments are templates over the case ({{.Query}}); the
// process also gets the case as one JSON line on stdin
// ({"id","query","k","trial","tags","vars"}, and for a turn of a
// conversation "turn" and "history", the earlier messages) and in the
// environment (ASSAY_CASE_ID, ASSAY_QUERY, ASSAY_K, ASSAY_TRIAL, and
// ASSAY_TURN for a turn). Its stdout is the
// observation JSON (docs/observations.md), or is read with map:. The process runs in its
// own process group; when the timeout passes (or the run is interrupted) the
// whole group is killed, so a shell script's children die with it.
//
// Serve (command: {serve: [prog, args...], workers: N}): N long-lived
// processes, started on first use; each case is one JSON line written to a
// free worker's stdin (the same object as above), answered by one line of
// JSON on its stdout. A worker that times out, exits or writes a line that
// is too long is killed and started again for the next case.
//
// Failures are errors as data: exec (the program could not start or exited
// non-zero: exit status and the tail of its stderr), timeout, malformed
// (stdout is not JSON, or longer than max_body), canceled.
type Command struct {
	spec     string
	variant  map[string]string
	argv     []strTmpl
	serve    bool
	workers  int
	timeout  time.Duration
	mapping  []mapField
	env      []string
	dir      string
	maxOut   int64
	defaultK int
	secrets  *secrets
	config   any

	mu     sync.Mutex
	pool   chan *worker // serve mode: free workers (nil = not started)
	live   []*worker
	closed bool
}

var (
	_ assay.Target    = (*Command)(nil)
	_ assay.Describer = (*Command)(nil)
)

// Defaults of command targets.
const (
	DefaultCommandTimeout = 60 * time.Second
	stderrTail            = 2048
)

func newCommand(spec string, o Options) *Command {
	c := &Command{spec: spec, workers: 1, timeout: DefaultCommandTimeout, maxOut: DefaultMaxBody,
		defaultK: assay.DefaultK, secrets: newSecrets(), mapping: defaultMap(), variant: o.Variant}
	if o.Suite != nil && o.Suite.Defaults.K > 0 {
		c.defaultK = o.Suite.Defaults.K
	}
	return c
}

// newCommandShorthand is the spec command:'prog args'.
func newCommandShorthand(line string, o Options) (assay.Target, error) {
	words, err := splitWords(line)
	if err != nil {
		return nil, fmt.Errorf("target command:%s: %v", line, err)
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("target command: needs a program, as command:'prog args'")
	}
	c := newCommand("command:"+line, o)
	shown := redactArgs(words)
	if strings.Join(shown, "\x00") != strings.Join(words, "\x00") {
		// What is kept of the spec (records, reports, errors) shows no
		// credential.
		c.spec = "command:" + shellJoin(shown)
	}
	if _, _, err := checkArgs(words, words, o.AllowLiteralSecrets, c.secrets); err != nil {
		return nil, fmt.Errorf("target %s: %v", c.spec, err)
	}
	for i, w := range words {
		t, err := compileStr(&node{file: "command"}, fmt.Sprintf("argument %d", i+1), w)
		if err != nil {
			return nil, fmt.Errorf("target %s: %v", c.spec, strings.TrimPrefix(err.Error(), "command: "))
		}
		if i == 0 && !t.isTemplate() {
			if err := checkProgram(w); err != nil {
				return nil, fmt.Errorf("target %s: %v", c.spec, err)
			}
		}
		c.argv = append(c.argv, t)
	}
	c.config = map[string]any{"command": shown}
	return c, nil
}

// checkProgram reports a program that cannot be run at all, so an unknown
// command is a harness error before the run rather than an exec error in
// every case.
func checkProgram(prog string) error {
	if _, err := exec.LookPath(prog); err != nil {
		return fmt.Errorf("program %q not found or not executable", prog)
	}
	return nil
}

// splitWords splits a command line like a POSIX shell would, with single
// and double quotes and backslash escapes (no expansions).
func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				esc = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			esc, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if esc {
		return nil, errors.New("trailing backslash")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// parseCommand reads command: and its sibling options from n.
func (fc *fileCtx) parseCommand(n, cn *node) (*Command, error) {
	c := newCommand(fc.path, fc.o)
	c.secrets = fc.sc
	c.config = fc.written
	opts := n // timeout, map, env, dir, max_body beside command:
	var argvNode *node
	switch cn.kind {
	case seqNode:
		argvNode = cn
	case mapNode:
		if err := cn.checkKeys("command", commandKeys...); err != nil {
			return nil, err
		}
		run, serve := cn.get("run"), cn.get("serve")
		switch {
		case run != nil && serve != nil:
			return nil, serve.errorf("command: has both run: and serve:")
		case serve != nil:
			argvNode, c.serve = serve, true
		case run != nil:
			argvNode = run
		default:
			return nil, cn.errorf("command: needs run: [prog, args] or serve: [prog, args]")
		}
		if x := cn.get("workers"); x != nil {
			w, err := x.integer("command.workers")
			if err != nil {
				return nil, err
			}
			if w < 1 || w > 256 {
				return nil, x.errorf("command.workers: want 1 to 256, got %d", w)
			}
			if !c.serve {
				return nil, x.errorf("command.workers: only with serve:")
			}
			c.workers = w
		}
		for _, k := range []string{"timeout", "map", "env", "dir", "max_body"} {
			if x := cn.get(k); x != nil {
				if y := n.get(k); y != nil {
					return nil, y.errorf("%s: given twice (beside command: and inside it)", k)
				}
			}
		}
		opts = &node{kind: mapNode}
		for _, src := range []*node{n, cn} {
			for i, k := range src.keys {
				switch k {
				case "timeout", "map", "env", "dir", "max_body":
					opts.keys = append(opts.keys, k)
					opts.vals = append(opts.vals, src.vals[i])
					opts.keyNodes = append(opts.keyNodes, src.keyNodes[i])
				}
			}
		}
	default:
		return nil, cn.errorf("command: want [prog, args...] or {serve: [prog, args...], workers: N}")
	}
	words, err := argvNode.strList("command")
	if err != nil {
		return nil, err
	}
	if len(words) == 0 || words[0] == "" {
		return nil, argvNode.errorf("command: needs a program")
	}
	written := make([]string, len(words))
	for i, it := range argvNode.items {
		written[i] = words[i]
		if it.env {
			written[i] = it.written
		}
	}
	if i, _, err := checkArgs(written, words, fc.o.AllowLiteralSecrets, fc.sc); err != nil {
		return nil, argvNode.items[i].errorf("command: %v", err)
	}
	for i, w := range words {
		it := argvNode.items[i]
		if i == 0 && !strings.Contains(w, "{{") && strings.Contains(w, "/") && !filepath.IsAbs(w) {
			if abs, err := filepath.Abs(filepath.Join(fc.dir, w)); err == nil {
				w = abs
			}
		}
		t, err := compileStr(it, fmt.Sprintf("command[%d]", i), w)
		if err != nil {
			return nil, err
		}
		c.argv = append(c.argv, t)
	}
	if x := opts.get("timeout"); x != nil {
		if c.timeout, err = durationOf(x, "timeout"); err != nil {
			return nil, err
		}
	}
	if x := opts.get("max_body"); x != nil {
		if c.maxOut, err = sizeOf(x, "max_body"); err != nil {
			return nil, err
		}
	}
	if x := opts.get("map"); x != nil {
		if c.mapping, err = parseMap(x, nil, false); err != nil {
			return nil, err
		}
	}
	if x := opts.get("dir"); x != nil {
		d, err := x.str("dir")
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(fc.dir, d)
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		// Checked here, when the target is opened: a missing directory
		// would otherwise fail every case as "fork/exec PROG: no such
		// file or directory", naming the program rather than the dir.
		if fi, err := os.Stat(d); err != nil {
			return nil, x.errorf("dir: %s: no such directory", d)
		} else if !fi.IsDir() {
			return nil, x.errorf("dir: %s: not a directory", d)
		}
		c.dir = d
	}
	if x := opts.get("env"); x != nil {
		if x.kind != mapNode {
			return nil, x.errorf("env: want a mapping of NAME to value")
		}
		for i, k := range x.keys {
			v := x.vals[i]
			s, err := v.str("env." + k)
			if err != nil {
				return nil, err
			}
			if !validVarName(k) {
				return nil, x.keyNodes[i].errorf("env: %q is not a variable name", k)
			}
			if err := fc.checkLiteral(v, "env", k, s); err != nil {
				return nil, err
			}
			c.env = append(c.env, k+"="+s)
		}
	}
	if !c.argv[0].isTemplate() {
		if err := checkProgram(c.argv[0].lit); err != nil {
			return nil, argvNode.errorf("command: %v", err)
		}
	}
	if c.serve {
		c.pool = make(chan *worker, c.workers)
		for range c.workers {
			c.pool <- nil
		}
	}
	return c, nil
}

// Secrets returns the values expanded from the environment (and the
// forms derived from them): everything the run must redact.
func (c *Command) Secrets() []redact.Secret { return c.secrets.list() }

// Describe returns the target's kind and its configuration as written, with
// credentials redacted.
func (c *Command) Describe() assay.TargetInfo {
	cfg, _ := redactConfig(c.config).(map[string]any)
	return assay.TargetInfo{Kind: "command", Spec: c.spec, Config: cfg, Fingerprint: fingerprint(cfg)}
}

// caseLine is the JSON a process gets for a case.
type caseLine struct {
	ID    string            `json:"id"`
	Query string            `json:"query"`
	K     int               `json:"k"`
	Trial int               `json:"trial"`
	Tags  map[string]string `json:"tags,omitempty"`
	Vars  map[string]string `json:"vars,omitempty"`
	// Turn and History are set for a turn of a conversation.
	Turn    int             `json:"turn,omitempty"`
	History []assay.Message `json:"history,omitempty"`
}

// Observe runs the case.
func (c *Command) Observe(ctx context.Context, cs assay.Case) (assay.Observation, error) {
	trial := assay.TrialFrom(ctx)
	obs := assay.Observation{Case: cs.ID, Trial: trial}
	d := caseData(cs, c.defaultK, trial, cs.Vars, c.variant)
	start := time.Now()
	var out []byte
	var err error
	if c.serve {
		out, err = c.exchange(ctx, d)
	} else {
		out, err = c.runOnce(ctx, d)
	}
	lat := float64(time.Since(start).Microseconds()) / 1000
	obs.LatencyMs = &lat
	if err == nil {
		err = applyMap(&obs, c.mapping, map[string]*response{"stdout": {body: out, red: c.secrets.redactor()}}, "stdout", "stdout")
	}
	return finish(obs, err)
}

func (c *Command) args(d *tmplData) ([]string, error) {
	out := make([]string, len(c.argv))
	for i, t := range c.argv {
		s, err := t.render(d)
		if err != nil {
			return nil, assay.Errorf(assay.ErrMalformed, "building argument %d: %s", i+1, err)
		}
		out[i] = s
	}
	return out, nil
}

func requestLine(d *tmplData) []byte {
	b, _ := json.Marshal(caseLine{ID: d.ID, Query: d.Query, K: d.K, Trial: d.Trial, Tags: d.Tags, Vars: d.Vars, Turn: d.Turn, History: d.History})
	return append(b, '\n')
}

// runOnce runs one process for the case and returns its stdout.
func (c *Command) runOnce(ctx context.Context, d *tmplData) ([]byte, error) {
	argv, err := c.args(d)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, argv[0], argv[1:]...)
	cmd.Dir = c.dir
	cmd.Env = append(cmd.Environ(), c.env...)
	cmd.Env = append(cmd.Env, "ASSAY_CASE_ID="+d.ID, "ASSAY_QUERY="+d.Query,
		"ASSAY_K="+strconv.Itoa(d.K), "ASSAY_TRIAL="+strconv.Itoa(d.Trial))
	if d.Turn > 0 {
		cmd.Env = append(cmd.Env, "ASSAY_TURN="+strconv.Itoa(d.Turn))
	}
	cmd.Stdin = bytes.NewReader(requestLine(d))
	stdout := &capWriter{max: c.maxOut}
	stderr := &tailWriter{max: stderrTail, red: c.secrets.redactor()}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		// The program exited 0 but left a child holding stdout; what it
		// wrote before exiting is its answer.
		err = nil
	}
	switch {
	case ctx.Err() != nil:
		return nil, ctxError(ctx, ctx.Err())
	case tctx.Err() == context.DeadlineExceeded:
		return nil, assay.Errorf(assay.ErrTimeout, "%s: no result within %s (process group killed)", filepath.Base(argv[0]), c.timeout)
	case err != nil:
		return nil, execError(argv[0], err, stderr.String())
	case stdout.over:
		return nil, assay.Errorf(assay.ErrMalformed, "%s: stdout exceeds max_body (%s)", filepath.Base(argv[0]), formatSize(c.maxOut))
	}
	return stdout.buf.Bytes(), nil
}

func execError(prog string, err error, tail string) error {
	name := filepath.Base(prog)
	var ee *exec.ExitError
	msg := ""
	if errors.As(err, &ee) {
		msg = fmt.Sprintf("%s: %s", name, ee.ProcessState.String())
	} else {
		msg = fmt.Sprintf("%s: %s", name, strings.TrimPrefix(err.Error(), "exec: "))
	}
	if binary([]byte(tail)) {
		msg += fmt.Sprintf(": stderr: (binary data, %d bytes)", len(tail))
	} else if tail = strings.TrimSpace(tail); tail != "" {
		msg += ": stderr: " + tail
	}
	return assay.Errorf(assay.ErrExec, "%s", msg)
}

// capWriter keeps up to max bytes and notes when more came.
type capWriter struct {
	buf  bytes.Buffer
	max  int64
	over bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max - int64(w.buf.Len())
	if int64(len(p)) > room {
		w.over = true
		if room > 0 {
			w.buf.Write(p[:room])
		}
		return len(p), nil
	}
	w.buf.Write(p)
	return len(p), nil
}

// tailWriter keeps the end of what is written to it: String is the last
// max bytes, redacted whole before the cut. It holds up to tailKeep bytes
// (twice that before it trims); once trimmed, what it holds starts inside
// the stream, and Redactor.Tail drops the bytes that could be the end of a
// secret cut off there.
type tailWriter struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	red     *redact.Redactor
	trimmed bool
}

// tailKeep is how much of a stream's end a tailWriter holds.
const tailKeep = 64 << 10

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*tailKeep {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-tailKeep:]...)
		w.trimmed = true
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, cut := w.buf, w.trimmed
	if len(b) > tailKeep {
		b, cut = b[len(b)-tailKeep:], true
	}
	return strings.Join(strings.Fields(w.red.Tail(b, w.max, cut)), " ")
}

// worker is one long-lived serve process.
type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan lineResult
	done   chan struct{} // closed when the process has exited
	quit   chan struct{} // closed when the worker is abandoned
	once   sync.Once
	stderr *tailWriter
	err    error // Wait's result, valid after done
	dead   bool
}

type lineResult struct {
	line []byte
	err  error
}

func (c *Command) start() (*worker, error) {
	argv, err := c.args(&tmplData{K: c.defaultK, Tags: map[string]string{}, Variant: c.variant})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.dir
	cmd.Env = append(cmd.Environ(), c.env...)
	w := &worker{cmd: cmd, lines: make(chan lineResult, 1), done: make(chan struct{}), quit: make(chan struct{}), stderr: &tailWriter{max: stderrTail, red: c.secrets.redactor()}}
	cmd.Stderr = w.stderr
	setGroup(cmd)
	if w.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, execError(argv[0], err, "")
	}
	// Our own pipe rather than StdoutPipe: the reader owns its end and sees
	// EOF when every process of the group has let go of the other end.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, execError(argv[0], err, "")
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, execError(argv[0], err, "")
	}
	pw.Close()
	go func() {
		defer pr.Close()
		r := bufio.NewReaderSize(pr, 64<<10)
		for {
			line, err := readLine(r, c.maxOut)
			select {
			case w.lines <- lineResult{line, err}:
			case <-w.quit:
				return
			}
			if err != nil && !errors.Is(err, errLineTooLong) {
				return
			}
		}
	}()
	go func() {
		w.err = cmd.Wait()
		close(w.done)
	}()
	return w, nil
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line of at most max bytes (without the newline).
func readLine(r *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if int64(len(line)+len(frag)) > max+1 {
			// Drain to the end of the line so the stream stays in step.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil {
				return nil, err
			}
			return nil, errLineTooLong
		}
		line = append(line, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if len(line) > 0 && err == io.EOF {
				return line, nil
			}
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

// kill ends a worker's process group and waits for it.
func (w *worker) kill() {
	w.dead = true
	w.once.Do(func() { close(w.quit) })
	_ = killGroup(w.cmd)
	select {
	case <-w.done:
	case <-time.After(5 * time.Second):
	}
}

// exchange sends the case to a free serve worker and reads its answer line.
func (c *Command) exchange(ctx context.Context, d *tmplData) ([]byte, error) {
	var w *worker
	select {
	case w = <-c.pool:
	case <-ctx.Done():
		return nil, ctxError(ctx, ctx.Err())
	}
	defer func() {
		if w != nil && w.dead {
			w = nil
		}
		c.pool <- w
	}()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, assay.Errorf(assay.ErrCanceled, "target closed")
	}
	if w == nil {
		var err error
		if w, err = c.start(); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.live = append(c.live, w)
		c.mu.Unlock()
	}
	name := filepath.Base(w.cmd.Path)
	if _, err := w.stdin.Write(requestLine(d)); err != nil {
		w.kill()
		return nil, execError(name, w.exitErr(err), w.stderr.String())
	}
	t := time.NewTimer(c.timeout)
	defer t.Stop()
	select {
	case r := <-w.lines:
		if errors.Is(r.err, errLineTooLong) {
			w.kill()
			return nil, assay.Errorf(assay.ErrMalformed, "%s: answer line exceeds max_body (%s)", name, formatSize(c.maxOut))
		}
		if r.err != nil {
			w.kill()
			return nil, execError(name, w.exitErr(fmt.Errorf("stdout closed before an answer line")), w.stderr.String())
		}
		return r.line, nil
	case <-t.C:
		w.kill()
		return nil, assay.Errorf(assay.ErrTimeout, "%s: no answer line within %s (worker killed and restarted)", name, c.timeout)
	case <-ctx.Done():
		w.kill()
		return nil, ctxError(ctx, ctx.Err())
	}
}

// exitErr prefers the process's exit status, when it has exited.
func (w *worker) exitErr(fallback error) error {
	select {
	case <-w.done:
		if w.err != nil {
			return w.err
		}
		return fmt.Errorf("exited: %w", fallback)
	case <-time.After(time.Second):
		return fallback
	}
}

// Close stops the serve workers: stdin is closed, and a worker still
// running after two seconds is killed.
func (c *Command) Close() error {
	c.mu.Lock()
	c.closed = true
	live := c.live
	c.live = nil
	c.mu.Unlock()
	for _, w := range live {
		_ = w.stdin.Close()
	}
	for _, w := range live {
		select {
		case <-w.done:
		case <-time.After(2 * time.Second):
		}
		w.kill()
	}
	return nil
}

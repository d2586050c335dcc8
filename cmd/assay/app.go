package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay/cmd/assay/internal/complete"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// Env is the process state a command may use. Nothing below main reads
// os.Args, os.Stdout or the environment directly.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Ctx is canceled on SIGINT/SIGTERM.
	Ctx context.Context
	// Secrets is the one list of secret values of this invocation (what
	// the targets opened expanded from the environment). run wraps Stdout
	// and Stderr so that everything printed is redacted with it; records
	// and output files are redacted with it too.
	Secrets *redact.Redactor
	// Now is the clock of progress lines (time.Now when nil).
	Now func() time.Time
}

func (env *Env) now() time.Time {
	if env.Now != nil {
		return env.Now()
	}
	return time.Now()
}

// Exit codes (docs/cli.md#exit-status).
const (
	exitOK      = 0
	exitFailed  = 1 // a gate failed or a comparison regressed
	exitHarness = 2 // usage, configuration, input or harness error
)

// The errors of the commands are harness.Errors: one Kind each, mapped
// to an exit code in run's one switch.

// usageError is exit 2 with a message (and an optional hint line).
func usageError(hint string, format string, args ...any) error {
	return cli.UsageError(hint, format, args...)
}

// inputError is exit 2 for bad input; the message is printed as is (it is
// usually positioned "file:line:col: msg").
func inputError(err error) error { return cli.InputError(err) }

// exitStatus is an exit code with nothing more to print (assay trec's own).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// exitCode is the exit code of an error's kind.
func exitCode(k harness.Kind) int {
	switch k {
	case harness.GateFailed, harness.Regressed:
		return exitFailed
	}
	return exitHarness
}

// run is the single place that turns errors into exit codes.
func run(ctx context.Context, args []string, env *Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	env.Ctx = ctx
	if env.Secrets == nil {
		env.Secrets = redact.New()
	}
	env.Secrets.Add(urlPasswords(args, env.Getenv)...)
	// Everything printed goes through the one redaction rule.
	stdout, stderr := redact.NewWriter(env.Stdout, env.Secrets), redact.NewWriter(env.Stderr, env.Secrets)
	env.Stdout, env.Stderr = stdout, stderr
	defer func() {
		stdout.Flush()
		stderr.Flush()
	}()
	root := newRootCmd(env)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var es exitStatus
	if errors.As(err, &es) {
		return int(es)
	}
	var he *harness.Error
	if errors.As(err, &he) {
		msg, hint := he.Err, he.Hint
		// A plan's field is named as the flag that sets it.
		var pe *harness.PlanError
		if errors.As(err, &pe) {
			var m string
			m, hint = pe.Text(cli.FlagName)
			msg = errors.New(m)
		}
		if msg != nil {
			printError(env.Stderr, msg)
		}
		if hint != "" {
			fmt.Fprintf(env.Stderr, "assay: hint: %s\n", report.Escape(hint))
		}
		return exitCode(he.Kind)
	}
	// Cobra's own errors (unknown flag, wrong arg count) are usage errors.
	printError(env.Stderr, err)
	return exitHarness
}

// urlPasswords are the secrets of the URLs the invocation names (a
// --store postgres://user:PASSWORD@host/db argument, $ASSAY_STORE): the
// password of the user info and the values of query parameters named like
// a credential (?password=...), as written and percent-decoded; and
// $PGPASSWORD. A user name alone is not a secret ("postgres").
func urlPasswords(args []string, getenv func(string) string) []redact.Secret {
	var out []redact.Secret
	add := func(name, v string) {
		out = append(out, redact.Secret{Name: name, Value: v})
		if u, err := url.PathUnescape(v); err == nil && u != v {
			out = append(out, redact.Secret{Name: name, Value: u})
		}
	}
	scan := func(name, s string) {
		if !strings.Contains(s, "://") {
			return
		}
		// A ${VAR} is expanded by the store, which takes care of its value.
		_, pass, _, hasPass, query := redact.SplitURL(s)
		if hasPass && redact.IsLiteral(pass) {
			add(name, pass)
		}
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if redact.IsSecretName(k) && redact.IsLiteral(v) {
				add(name, v)
			}
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			_, a, _ = strings.Cut(a, "=")
		}
		scan("", a)
	}
	scan("", getenv("ASSAY_STORE"))
	if v := getenv("PGPASSWORD"); v != "" {
		add("PGPASSWORD", v)
	}
	return out
}

// printError prints one error line. Positioned errors ("file:line:col: msg")
// are printed as they are; others get the "assay: error: " prefix. Control
// bytes (a case id's, a target's stderr, a server's message) are shown
// escaped, as the reports show them.
func printError(w io.Writer, err error) {
	msg := report.EscapeLines(err.Error())
	if looksPositioned(msg) {
		fmt.Fprintln(w, msg)
		return
	}
	fmt.Fprintf(w, "assay: error: %s\n", msg)
}

func looksPositioned(msg string) bool {
	first, _, ok := strings.Cut(msg, ": ")
	if !ok {
		return false
	}
	parts := strings.Split(first, ":")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts[1:] {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

func newRootCmd(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "assay",
		Short:         "A deterministic evaluation harness for search and RAG systems",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       cli.Build().Version,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError("run '"+c.CommandPath()+" --help' for usage", "%s", err.Error())
	})
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error { return emptyFlagValue(c) }
	// The one explicit list of commands.
	for _, mk := range []func(*Env) *cobra.Command{
		newRunCmd,
		newLintCmd,
		newTracesCmd, newProposeCmd,
		newImportCmd, newInitCmd,
		newGateCmd,
		newTrecCmd,
		newCompareCmd, newPowerCmd,
		newRunsCmd, newMergeCmd,
		newServeCmd, newUICmd, newReportCmd,
		newVersionCmd, newSchemaCmd, newCacheCmd, newStoreCmd, newJudgeCmd,
		newPoolCmd, newJudgmentsCmd,
	} {
		root.AddCommand(mk(env))
	}
	complete.Register(root, func(flag string) string { dir, _ := storeRoot(env, flag); return dir })
	return root
}

// emptyFlagValue is the usage error of a string flag given empty
// (--json "", --target "", --gate ""): an empty value is a quoting slip
// (an unset shell variable), never a choice; leaving the flag out is.
func emptyFlagValue(c *cobra.Command) error {
	var bad *pflag.Flag
	c.Flags().Visit(func(fl *pflag.Flag) {
		if bad != nil {
			return
		}
		switch fl.Value.Type() {
		case "string":
			if fl.Value.String() == "" {
				bad = fl
			}
		case "stringArray", "stringSlice":
			if sv, ok := fl.Value.(pflag.SliceValue); ok && slices.Contains(sv.GetSlice(), "") {
				bad = fl
			}
		}
	})
	if bad == nil {
		return nil
	}
	return usageError("give --"+bad.Name+" a value, or leave the flag out", "--%s: empty value", bad.Name)
}

// isTerminal reports whether w is a terminal (for progress bars and color).
func isTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

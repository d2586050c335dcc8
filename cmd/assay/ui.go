package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/ui"
	"github.com/spf13/cobra"
)

func newUICmd(env *Env) *cobra.Command {
	var storeDir, addr string
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Serve a read-only web UI over the run store (runs, cases, compare, history)",
		Long: `Serve the run store as a read-only web UI (docs/ui.md): runs with trends, a run
with its case table, each case whole, the comparison of two runs and the
history of each case. It binds to 127.0.0.1 unless --addr names another
interface (it has no authentication: a warning says so), answers GET and HEAD
only, loads nothing from the network, and stops on SIGINT or SIGTERM.`,
		Example: "  assay ui\n  assay ui --store .assay --addr 127.0.0.1:3006",
		Args:    noArgs("assay ui [--store DIR] [--addr 127.0.0.1:3006]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return usageError("assay ui --addr 127.0.0.1:3006", "--addr %q: %v", addr, err)
			}
			dir, _ := storeRoot(env, storeDir)
			if _, err := os.Stat(dir); err != nil {
				return inputError(fmt.Errorf("no run store at %s: run 'assay run SUITE' first, or pass --store DIR", dir))
			}
			st, err := openStore(env, dir)
			if err != nil {
				return inputError(err)
			}
			defer st.Close()
			if !ui.Loopback(addr) {
				fmt.Fprintf(env.Stderr, "assay: warning: --addr %s is not loopback: the UI has no authentication, anyone who reaches it reads every run\n", addr)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return inputError(fmt.Errorf("--addr %q: %v", addr, harness.ListenReason(err)))
			}
			ctx, stop := signal.NotifyContext(env.Ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			srv := harness.NewServer(ui.New(st, ui.Options{}), serveBounds)
			fmt.Fprintf(env.Stderr, "assay: ui on http://%s (store %s)\n", ln.Addr(), dir)
			go func() { <-ctx.Done(); srv.Close() }()
			srv.Serve(harness.LimitListener(ln, serveBounds.MaxConns))
			return nil
		},
	}
	cmd.Flags().StringVar(&storeDir, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:3006", "`ADDR` to listen on (host:port)")
	return cmd
}

func newReportCmd(env *Env) *cobra.Command {
	var storeDir, html string
	cmd := &cobra.Command{
		Use:   "report --html DIR RUN [BASE]",
		Short: "Write the UI's pages of a run (and its comparison with BASE) as static HTML",
		Long: `Write DIR/index.html (the run page), a page per case and, with BASE,
DIR/compare.html and a diff page per changed case: relative links, no script,
nothing loaded from the network, so DIR opens from disk as a CI artifact.
RUN and BASE are run references (docs/ui.md).`,
		Example: "  assay report --html out latest latest~1",
		Args:    cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if html == "" {
				return usageError("assay report --html DIR RUN [BASE]", "report needs --html DIR")
			}
			st, closeStore, err := openRefStore(env, storeDir, args...)
			if err != nil {
				return inputError(err)
			}
			defer closeStore()
			return writeHTML(env, st, html, args[0], append(args[1:], "")[0])
		},
	}
	cmd.Flags().StringVar(&html, "html", "", "write the static report into `DIR`")
	cmd.Flags().StringVar(&storeDir, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
	return cmd
}

// writeHTML writes the static report of run (compared with base when not
// "") into dir and names it on stderr.
func writeHTML(env *Env, st store.Store, dir, run, base string) error {
	files, err := ui.WriteStatic(env.Ctx, dir, st, run, base)
	if err != nil {
		return inputError(err)
	}
	fmt.Fprintf(env.Stderr, "assay: wrote %s (%d pages)\n", filepath.Join(dir, "index.html"), len(files))
	return nil
}

// runHTML is run --html: the static report of each run made, with its
// baseline; one subdirectory per variant of a matrix.
func runHTML(env *Env, f *runFlags, p harness.Plan, res *harness.Result) error {
	if f.html == "" {
		return nil
	}
	st, err := openStore(env, p.StoreDir)
	if err != nil {
		return inputError(err)
	}
	defer st.Close()
	for i, run := range res.Runs {
		dir, base := f.html, ""
		if len(res.Runs) > 1 {
			dir = filepath.Join(f.html, harness.ShortID(run.RunID))
		}
		if i < len(res.Baselines) && res.Baselines[i] != nil {
			base = res.Baselines[i].RunID
		}
		if store.IsPathRef(f.baseline) && len(res.Runs) == 1 {
			base = f.baseline
		}
		if err := writeHTML(env, st, dir, run.RunID, base); err != nil {
			return err
		}
	}
	return nil
}

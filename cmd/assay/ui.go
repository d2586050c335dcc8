package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/ui"
	"github.com/spf13/cobra"
)

func newUICmd(env *Env) *cobra.Command {
	var storeDir, addr string
	cmd := &cobra.Command{
		Use:     "ui",
		Short:   "Serve a read-only web UI over the run store (docs/ui.md)",
		Example: "  assay ui --store .assay --addr 127.0.0.1:3006",
		Args:    noArgs("assay ui [--store DIR] [--addr 127.0.0.1:3006]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, _ := storeRoot(env, storeDir)
			if _, err := os.Stat(dir); err != nil && !store.IsURL(dir) {
				return inputError(fmt.Errorf("no run store at %s: run 'assay run SUITE' first, or pass --store DIR", dir))
			}
			st, err := openStore(env, dir)
			if err != nil {
				return inputError(err)
			}
			defer st.Close()
			ctx, stop := signal.NotifyContext(env.Ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if !ui.Loopback(addr) {
				fmt.Fprintf(env.Stderr, "assay: warning: --addr %s is not loopback: the UI has no authentication, anyone who reaches it reads every run\n", addr)
			}
			return ui.Serve(ctx, addr, ui.New(st, ui.Options{}), serveBounds, func(a net.Addr) {
				fmt.Fprintf(env.Stderr, "assay: ui on http://%s (store %s)\n", a, store.RedactURL(dir))
			})
		},
	}
	cmd.Flags().StringVar(&storeDir, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:3006", "`ADDR` to listen on (host:port)")
	return cmd
}

func newReportCmd(env *Env) *cobra.Command {
	var storeDir, html string
	cmd := &cobra.Command{
		Use:     "report --html DIR RUN [BASE]",
		Short:   "Write the UI's pages of a run, compared with BASE, as static HTML into DIR",
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
			files, err := ui.WriteStatic(env.Ctx, html, st, args[0], append(args[1:], "")[0])
			if err != nil {
				return inputError(err)
			}
			fmt.Fprintf(env.Stderr, "assay: wrote %s (%d pages)\n", files[0], len(files))
			return nil
		},
	}
	cmd.Flags().StringVar(&html, "html", "", "write the static report into `DIR`")
	cmd.Flags().StringVar(&storeDir, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
	return cmd
}

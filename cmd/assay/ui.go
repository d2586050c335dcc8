package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
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
			ctx, stop := signal.NotifyContext(env.Ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return cli.ServeStore(ctx, uiStore(env, storeDir), addr, serveBounds)
		},
	}
	storeFlagVar(cmd.Flags(), &storeDir)
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
			return cli.WriteReport(env.Ctx, uiStore(env, storeDir), html, args[0], append(args[1:], "")[0])
		},
	}
	cmd.Flags().StringVar(&html, "html", "", "write the static report into `DIR`")
	storeFlagVar(cmd.Flags(), &storeDir)
	return cmd
}

// uiStore is the store of assay ui and assay report, logging on stderr.
func uiStore(env *Env, flag string) cli.StorePlan {
	dir, o := storeFlag(env, flag)
	return cli.StorePlan{StoreDir: dir, StoreOptions: o, Log: env.Stderr}
}

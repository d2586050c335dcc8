// Command verdictsim measures the properties of compare's verdict and the
// no_new_failures gate on simulated runs (package internal/verdictsim) and
// prints the figures docs/benchmarks.md records:
//
//	go run ./bench/verdictsim            # 200 pairs per setting
//	go run ./bench/verdictsim -pairs 40  # quicker
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/internal/verdictsim"
)

func main() {
	pairs := flag.Int("pairs", 200, "pairs of runs per setting")
	seed := flag.Uint64("seed", 2026, "PCG seed")
	flag.Parse()
	start := time.Now()
	fmt.Printf("verdictsim: %d pairs per setting, 100 cases, seed %d\n\n", *pairs, *seed)
	fmt.Printf("%-44s %9s %6s %12s %8s %6s %8s %8s\n", "setting", "regressed", "same", "inconclusive", "better", "gate", "strict", "named")
	row := func(name string, t verdictsim.Tally) {
		fmt.Printf("%-44s %8.1f%% %5.1f%% %11.1f%% %7.1f%% %5.1f%% %7.1f%%", name,
			100*t.Rate(compare.Regressed), 100*t.Rate(compare.Same), 100*t.Rate(compare.Inconclusive), 100*t.Rate(compare.Better),
			100*float64(t.GateFailed)/float64(t.Config.Pairs), 100*float64(t.StrictFailed)/float64(t.Config.Pairs))
		if t.Named > 0 {
			fmt.Printf(" %7.1f%%", 100*float64(t.Named)/float64(t.Config.Pairs))
		}
		fmt.Println()
		for _, b := range t.Broken {
			fmt.Println("  BROKEN:", b)
		}
	}
	cfg := func(trials, hist int) verdictsim.Config {
		return verdictsim.Config{Pairs: *pairs, Seed: *seed, Cases: 100, Trials: trials, History: hist}
	}
	fmt.Println("P1: A/A, one stochastic system (pass p ~ U(0.6, 1.0))")
	for _, th := range [][2]int{{1, 0}, {1, 5}, {3, 0}, {3, 5}} {
		row(fmt.Sprintf("  %d trial(s), %d history runs", th[0], th[1]), verdictsim.AA(cfg(th[0], th[1])))
	}
	fmt.Println("P2: every case's pass p lower by dp, metrics lower by dp/4")
	for _, dp := range []float64{0.2, 0.1, 0.05} {
		for _, th := range [][2]int{{1, 0}, {3, 0}, {1, 5}} {
			row(fmt.Sprintf("  dp %.2f, %d trial(s), %d history runs", dp, th[0], th[1]), verdictsim.Shift(cfg(th[0], th[1]), dp, dp/4))
		}
	}
	fmt.Println("P3: deterministic system, one case flips pass -> fail")
	row("  builtin, 1 trial", verdictsim.OneFlip(cfg(1, 0), "builtin", true))
	row("  http, 3 trials", verdictsim.OneFlip(cfg(3, 0), "http", true))
	row("  http, 1 trial, 5 history runs", verdictsim.OneFlip(cfg(1, 5), "http", true))
	row("  http, 1 trial, no history (noise unknown)", verdictsim.OneFlip(cfg(1, 0), "http", true))
	fmt.Println("P4: deterministic system, nothing changed")
	row("  builtin, 1 trial", verdictsim.OneFlip(cfg(1, 0), "builtin", false))
	fmt.Printf("\n%s\n", time.Since(start).Round(time.Second))
	os.Exit(0)
}

#!/bin/sh
# CPU seconds per operation of the sign-flip benchmarks in package compare,
# measured as process CPU (user + sys) rather than wall time, so that the
# figures mean something on a shared machine: for each benchmark, the CPU
# of running it 1 time is taken from the CPU of running it N+1 times (which
# leaves out building the deltas and any other set-up), divided by N.
# Usage: bench/signflip_cpu.sh [RUNS] [BENCHMARKS]   (from the repository root)
#   RUNS        repetitions of each measure (default 5); prints each and the median
#   BENCHMARKS  names without "Benchmark" (default: the sign-flip test and
#               its interval at 10,000 and 100,000 deltas)
set -eu
runs=${1:-5}
benches=${2:-"SignFlip10k FlipIntervalDense10k SignFlip100k FlipIntervalDense100k"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/compare.test" ./compare
cpu() { # benchmark, iterations
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$tmp/compare.test" -test.run XXX \
		-test.bench "^Benchmark$1\$" -test.benchtime "$2x" >/dev/null 2>&1
	awk '{print $1 + $2}' "$tmp/time"
}
for b in $benches; do
	case $b in
	*100k*) n=5 ;;
	*) n=20 ;;
	esac
	i=0
	while [ "$i" -lt "$runs" ]; do
		one=$(cpu "$b" 1)
		many=$(cpu "$b" $((n + 1)))
		echo "$one $many $n" | awk '{printf "%.4f\n", ($2 - $1) / $3}'
		i=$((i + 1))
	done | sort -n | awk -v b="$b" '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%-24s median %.3f s CPU/op (min %.3f, max %.3f, n=%d)\n", b, m, a[1], a[NR], NR}'
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/bin/sh
# Times `assay compare` of two synthetic 10,000-case runs (goal: <= 1 s), or
# of CASES cases, with the peak RSS of each run.
# Usage: bench/compare10k.sh [CHANGED] [RUNS] [CASES]   (from the repository root)
#   CHANGED  share of cases that differ between the runs (default 0.3; 1 = all)
#   RUNS     timed repetitions (default 10); prints each and the median
#   CASES    cases per run (default 10000; 100000 for the bounded-memory goal)
set -eu
changed=${1:-0.3}
runs=${2:-10}
n=${3:-10000}
out=bench/out/compare$n
mkdir -p "$out"
go build -o "$out/assay" ./cmd/assay
go run ./bench/compare10k -out "$out" -n "$n" -changed "$changed"
ls -l "$out"/base.json "$out"/cand.json
i=0
while [ "$i" -lt "$runs" ]; do
	/usr/bin/time -o "$out/time" -f '%e %U %S %M' "$out/assay" compare "$out/base.json" "$out/cand.json" >"$out/compare.txt" || true
	tail -1 "$out/time"
	i=$((i + 1))
done | sort -n | awk '{a[NR]=$1; printf "run: %s s wall, %.2f s CPU, %d MiB max RSS\n", $1, $2 + $3, $4 / 1024} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "median: %.3f s (n=%d)\n", m, NR}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
tail -3 "$out/compare.txt"

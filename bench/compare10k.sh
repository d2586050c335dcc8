#!/bin/sh
# Times `assay compare` of two synthetic 10,000-case runs (goal: <= 1 s).
# Usage: bench/compare10k.sh [CHANGED] [RUNS]   (from the repository root)
#   CHANGED  share of cases that differ between the runs (default 0.3; 1 = all)
#   RUNS     timed repetitions (default 10); prints each and the median
set -eu
changed=${1:-0.3}
runs=${2:-10}
out=bench/out/compare10k
mkdir -p "$out"
go build -o "$out/assay" ./cmd/assay
go run ./bench/compare10k -out "$out" -n 10000 -changed "$changed"
ls -l "$out"/base.json "$out"/cand.json
i=0
while [ "$i" -lt "$runs" ]; do
	s=$(date +%s.%N)
	"$out/assay" compare "$out/base.json" "$out/cand.json" >"$out/compare.txt" || true
	e=$(date +%s.%N)
	echo "$s $e" | awk '{printf "%.3f\n", $2 - $1}'
	i=$((i + 1))
done | sort -n | awk '{a[NR]=$1; print "run: " $1 " s"} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "median: %.3f s (n=%d)\n", m, NR}'
tail -3 "$out/compare.txt"

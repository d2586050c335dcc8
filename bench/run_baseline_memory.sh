#!/bin/sh
# Peak RSS of `assay run` of a JSONL suite against an instant HTTP stub,
# into a store, without and then with --baseline (the first run is the
# baseline of the second): the comparison's cost in memory.
# Usage: bench/run_baseline_memory.sh [CASES]   (from the repository root)
set -eu
n=${1:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/assay" ./cmd/assay
go build -o "$tmp/targetstub" ./bench/targetstub
cd "$tmp"
./targetstub -suite "$n" -jsonl > "s$n.jsonl"
for mode in no-baseline baseline; do
  flags="--store st"
  if [ "$mode" = baseline ]; then
    flags="--store st --baseline latest"
  fi
  ./targetstub -latency 0ms -- sh -c "exec /usr/bin/time -f '%e %M' ./assay run s$n.jsonl --target \"\$STUB_URL\" -j 4 $flags >/dev/null" 2>&1 |
    awk -v n="$n" -v m="$mode" 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%8d cases  %-12s  %7.2f s wall  %5d MiB max RSS\n", n, m, $1, $2 / 1024 }'
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

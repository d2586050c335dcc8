#!/bin/sh
# Peak RSS of `assay run` against an instant HTTP stub as the suite grows
# (issue 6: "a 100,000-case suite runs in memory that does not grow with the
# number of cases"). For each size: a run with no outputs (--no-store), and
# a run that also writes the store and --json, -j 4.
# Usage: bench/run_memory.sh [RUNS] [SIZES]   (from the repository root)
#   e.g. bench/run_memory.sh 3 "10000 100000 1000000"
set -eu
runs=${1:-3}
sizes=${2:-"10000 100000"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/assay" ./cmd/assay
go build -o "$tmp/targetstub" ./bench/targetstub
cd "$tmp"
for n in $sizes; do
  ./targetstub -suite "$n" > "s$n.yaml"
  for mode in no-store store+json; do
    i=0
    while [ $i -lt "$runs" ]; do
      rm -rf st run.json
      if [ "$mode" = no-store ]; then
        flags="--no-store"
      else
        flags="--store st --json run.json"
      fi
      ./targetstub -- sh -c "exec /usr/bin/time -f '%e %M' ./assay run s$n.yaml --target \"\$STUB_URL\" -j 4 $flags >/dev/null" 2>&1 |
        awk -v n="$n" -v m="$mode" 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%8d cases  %-10s  %6.2f s wall  %4d MiB max RSS\n", n, m, $1, $2 / 1024 }'
      i=$((i+1))
    done
  done
done

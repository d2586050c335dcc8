#!/bin/sh
# Peak RSS of `assay run` against an instant HTTP stub as the suite grows
# ("a 100,000-case suite runs in memory that does not grow with the
# number of cases"). For each size: a run with no outputs (--no-store), and
# a run that also writes the store and --json, -j 4.
# A JSONL suite streams; a YAML suite is parsed whole (its memory grows with
# the cases).
# Usage: bench/run_memory.sh [RUNS] [SIZES] [ENCODINGS]   (from the repository root)
#   e.g. bench/run_memory.sh 3 "10000 100000 1000000" jsonl
set -eu
runs=${1:-3}
sizes=${2:-"10000 100000"}
encodings=${3:-"jsonl yaml"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/assay" ./cmd/assay
go build -o "$tmp/targetstub" ./bench/targetstub
cd "$tmp"
for enc in $encodings; do
for n in $sizes; do
  if [ "$enc" = jsonl ]; then
    ./targetstub -suite "$n" -jsonl > "s$n.$enc"
  else
    ./targetstub -suite "$n" > "s$n.$enc"
  fi
  for mode in no-store store+json; do
    i=0
    while [ $i -lt "$runs" ]; do
      rm -rf st run.json
      if [ "$mode" = no-store ]; then
        flags="--no-store"
      else
        flags="--store st --json run.json"
      fi
      ./targetstub -- sh -c "exec /usr/bin/time -f '%e %M' ./assay run s$n.$enc --target \"\$STUB_URL\" -j 4 $flags >/dev/null" 2>&1 |
        awk -v n="$n" -v m="$mode" -v e="$enc" 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%-5s %8d cases  %-10s  %6.2f s wall  %4d MiB max RSS\n", e, n, m, $1, $2 / 1024 }'
      i=$((i+1))
    done
  done
done
done

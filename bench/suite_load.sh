#!/bin/sh
# Time and peak RSS of reading a suite as it grows, YAML (one whole-document
# parse) against JSONL (line by line): `assay lint` of the suites
# `targetstub -suite N` prints, which loads every case and checks it.
# Usage: bench/suite_load.sh [RUNS] [SIZES]   (from the repository root)
set -eu
runs=${1:-3}
sizes=${2:-"1000 10000 100000"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/assay" ./cmd/assay
go build -o "$tmp/targetstub" ./bench/targetstub
cd "$tmp"
for n in $sizes; do
  ./targetstub -suite "$n" > "s$n.yaml"
  ./targetstub -suite "$n" -jsonl > "s$n.jsonl"
  for enc in yaml jsonl; do
    i=0
    while [ $i -lt "$runs" ]; do
      /usr/bin/time -f '%e %M' ./assay lint "s$n.$enc" 2>&1 >/dev/null |
        awk -v n="$n" -v e="$enc" 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%-5s %8d cases  %6.2f s wall  %5d MiB max RSS\n", e, n, $1, $2 / 1024 }'
      i=$((i+1))
    done
  done
done

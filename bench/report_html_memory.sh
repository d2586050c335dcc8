#!/bin/sh
# Peak RSS and time of `assay report --html` over a large run: two runs of
# CASES cases whose observations carry about KB KiB each (bench/bigrun),
# reported alone and compared with the other (every case page, and a diff
# page per changed case). The report streams the case lines, so its memory
# does not grow with the run.
# Usage: bench/report_html_memory.sh [CASES] [KB] [ASSAY]   (from the repository root)
#   e.g. bench/report_html_memory.sh 10000 25
#   ASSAY: a binary to measure instead of ./cmd/assay built here (another commit's)
set -eu
cases=${1:-10000}
kb=${2:-25}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${3:-}" ]; then cp "$3" "$tmp/assay"; else go build -o "$tmp/assay" ./cmd/assay; fi
go build -o "$tmp/bigrun" ./bench/bigrun
cd "$tmp"
base=$(./bigrun -store st -cases "$cases" -kb "$kb")
cand=$(./bigrun -store st -cases "$cases" -kb "$kb" -variant 3)
lines=$(for d in st/runs/*/; do gzip -dc "$d/cases.jsonl.gz" | wc -c; done | awk '{s += $1} END {printf "%.0f", s / 2 / 1048576}')
echo "runs of $cases cases, $lines MiB of case lines each"
for mode in single compared; do
  rm -rf out
  if [ "$mode" = single ]; then refs=$cand; else refs="$cand $base"; fi
  /usr/bin/time -f '%e %M' ./assay report --html out $refs --store st 2>&1 >/dev/null |
    awk -v m="$mode" 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%-9s %7.1f s wall  %5d MiB max RSS\n", m, $1, $2 / 1024 }'
done

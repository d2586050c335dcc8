#!/bin/sh
# Harness overhead of assay against an HTTP system under test:
#   1. 1,000 cases against a stub that answers at once, -j 4: wall per case
#      and peak RSS of the assay process;
#   2. the same against a stub with 20 ms latency: wall against the ideal
#      1,000 x 20 ms / 4 = 5 s, and assay's p50/p95 against the stub's own.
# Usage: bench/target_http.sh [RUNS]   (from the repository root)
set -eu
runs=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/assay" ./cmd/assay
go build -o "$tmp/targetstub" ./bench/targetstub
"$tmp/targetstub" -suite 1000 > "$tmp/suite.yaml"
cd "$tmp"

echo "== 1000 cases, stub answers at once, -j 4 ($runs runs)"
i=0
while [ $i -lt "$runs" ]; do
  /usr/bin/time -f "%e s wall  %M KiB max RSS (assay)" ./targetstub -- sh -c \
    'exec /usr/bin/time -f "assay: %e s wall  %M KiB max RSS" ./assay run suite.yaml --target "$STUB_URL" -j 4 --no-store --json run.json >/dev/null' 2>&1 | grep -E '^assay:'
  i=$((i+1))
done

echo "== 1000 cases, stub latency 20ms, -j 4 (ideal wall 5.00 s)"
./targetstub -latency 20ms -- sh -c \
  'exec /usr/bin/time -f "assay: %e s wall  %M KiB max RSS" ./assay run suite.yaml --target "$STUB_URL" -j 4 --no-store --json run.json >/dev/null' 2>&1 | grep -E '^(assay|stub)'
grep -A4 '"latency_ms": {' run.json | grep -E '"p50"|"p95"' | tr -d ' ,' | sed 's/^/assay reports /' | head -2

#!/bin/sh
# Disk size of a stored 1,000-case run of the quickstart kind (goal: <= 1 MB):
# the quickstart's 24 cases run 42 times (1,008 case trials) with the builtin
# target into a fresh store. Run from the repository root.
set -eu
out=bench/out/store_size
rm -rf "$out"
mkdir -p "$out"
go build -o "$out/assay" ./cmd/assay
"$out/assay" run examples/quickstart/suite.yaml --trials 42 --store "$out/store" >"$out/run.txt" || true
head -2 "$out/run.txt"
dir=$(ls -d "$out"/store/runs/*/)
ls -l "$dir"
printf 'bytes in files: %s\n' "$(du -sb "$dir" | cut -f1)"
printf 'bytes on disk:  %s\n' "$(du -s --block-size=1 "$dir" | cut -f1)"

#!/bin/sh
# Disk size of a stored 1,000-case run (goal: <= 0.5 MB for the run's whole
# footprint: its directory and the SQLite index). Two kinds of run, each into
# a fresh store:
#   quickstart  the quickstart's 24 cases run 42 times (1,008 case trials)
#               with the builtin target (metrics in every case);
#   stub        1,000 JSONL cases against bench/targetstub at 0 ms
#               (answer checks only), the run bench/hotpath.sh measures.
# Run from the repository root.
set -eu
out=bench/out/store_size
rm -rf "$out"
mkdir -p "$out"
go build -o "$out/assay" ./cmd/assay
go build -o "$out/targetstub" ./bench/targetstub
report() { # NAME STORE
  dir=$(ls -d "$2"/runs/*/)
  echo "== $1"
  ls -l "$dir" "$2/assay.db"
  printf 'run directory, bytes in files: %s\n' "$(du -sb "$dir" | cut -f1)"
  printf 'whole store, bytes in files:   %s\n' "$(du -sb "$2" | cut -f1)"
  printf 'whole store, bytes on disk:    %s\n' "$(du -s --block-size=1 "$2" | cut -f1)"
}
"$out/assay" run examples/quickstart/suite.yaml --trials 42 --store "$out/quickstart" >"$out/run.txt" || true
report quickstart "$out/quickstart"
"$out/targetstub" -suite 1000 -jsonl >"$out/s1000.jsonl"
(cd "$out" && ./targetstub -- sh -c './assay run s1000.jsonl --target "$STUB_URL" -j 4 --store stub >/dev/null' >/dev/null)
report stub "$out/stub"

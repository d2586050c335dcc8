#!/bin/bash
# What `go test ./...` pays before any test runs: the go command links one
# test binary per package with tests (compiled packages come from the build
# cache, test binaries never do; vet's results are cached too) and starts
# each. This script runs `go test -count=1 -run '^$' -x -work ./...` once
# (every test binary linked and started, no test run), then links each test
# binary again, one at a time, with the go command's own link command, and
# prints per binary the CPU of that link (user + sys, seconds), its size and
# its package, largest CPU first, then the totals.
# Run from the repository root, after one warm-up `go test -run '^$' ./...`.
set -euo pipefail
out=bench/out/test_link
rm -rf "$out"
mkdir -p "$out/bin"
go test -count=1 -run '^$' -x -work ./... >/dev/null 2>"$out/x.txt"
work=$(sed -n '1s/^WORK=//p' "$out/x.txt")
: >"$out/links.txt"
grep -E '/link -o ' "$out/x.txt" | while read -r line; do
  b=$(grep -oE '\$WORK/b[0-9]+' <<<"$line" | head -1)
  b=${b#\$WORK/}
  pkg=$(grep -m1 -oE '^packagefile [^=]+\.test=' "$work/$b/importcfg.link" | sed 's/^packagefile //; s/\.test=$//')
  cmd=$(sed "s#\\\$WORK/$b/[^ ]*\\.test#$out/bin/$b.test#; s#\\\$WORK#$work#g" <<<"$line")
  t=$({ /usr/bin/time -f '%U %S' bash -c "$cmd"; } 2>&1 | tail -1)
  printf '%s %s %s\n' "$t" "$(stat -c %s "$out/bin/$b.test")" "$pkg" >>"$out/links.txt"
done
rm -rf "$work"
awk '{printf "%5.2f s %6.1f MB  %s\n", $1 + $2, $3 / 1e6, $4}' "$out/links.txt" | sort -rn
awk '{c += $1 + $2; s += $3; n++} END {printf "%d test binaries: %.1f s of CPU linking them, %.0f MB\n", n, c, s / 1e6}' "$out/links.txt"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

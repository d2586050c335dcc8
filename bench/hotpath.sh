#!/bin/sh
# assay run beside the floor (bench/floor: the minimal Go client that reads
# the JSONL suite, POSTs each case, checks the answer and writes one JSON
# line per result), interleaved: floor, assay --no-store, assay with the
# store and --json, then again, RUNS times; each against bench/targetstub.
# Prints per configuration the median CPU (user + sys) and wall, and the
# ratios to the floor's medians.
# Usage: bench/hotpath.sh [RUNS] [SIZES] [LATENCIES]   (from the repository root)
#   defaults: 5 runs, "1000 10000" cases at 0 ms, 1000 cases at 20ms.
#   LATENCIES is a list of size:latency pairs, e.g. "1000:0 10000:0 1000:20ms".
set -eu
runs=${1:-5}
pairs=${2:-"1000:0 10000:0 1000:20ms"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/assay" ./cmd/assay
go build -o "$tmp/targetstub" ./bench/targetstub
go build -o "$tmp/floor" ./bench/floor
go build -o "$tmp/timecmd" ./bench/timecmd
cd "$tmp"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)  $(date -u +%Y-%m-%dT%H:%MZ)"

# one N LATENCY MODE: runs MODE once and appends "N LATENCY MODE CPU WALL".
one() {
  case $3 in
  floor) cmd='./floor -suite s'$1'.jsonl -url "$STUB_URL" -j 4 -out floor.jsonl' ;;
  no-store) cmd='./assay run s'$1'.jsonl --target "$STUB_URL" -j 4 --no-store' ;;
  store) cmd='./assay run s'$1'.jsonl --target "$STUB_URL" -j 4 --store st --json run.json' ;;
  esac
  rm -rf st run.json floor.jsonl
  ./targetstub -latency "$2" -- sh -c "exec ./timecmd $cmd >/dev/null" 2>&1 |
    awk -v n="$1" -v l="$2" -v m="$3" '$1 == "TIME" { printf "%s %s %s %.3f %.3f\n", n, l, m, $2 + $3, $4 }' >> times
}

: > times
for pair in $pairs; do
  n=${pair%%:*}
  lat=${pair#*:}
  [ -f "s$n.jsonl" ] || ./targetstub -suite "$n" -jsonl > "s$n.jsonl"
  i=0
  while [ $i -lt "$runs" ]; do
    for mode in floor no-store store; do one "$n" "$lat" "$mode"; done
    i=$((i+1))
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)  (after)"

# medians per (cases, latency, mode), then ratios to the floor.
sort -k1,1n -k2,2 -k3,3 -k4,4n times | awk '
function median(a, k) { return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
{ key = $1 " " $2 " " $3; cpu[key, ++nc[key]] = $4; wall[key, nc[key]] = $5; keys[key] = 1 }
END {
  for (key in keys) {
    k = nc[key]
    delete c; delete w
    for (i = 1; i <= k; i++) { c[i] = cpu[key, i]; w[i] = wall[key, i] }
    # c is sorted by the outer sort; wall needs its own sort
    for (i = 2; i <= k; i++) { v = w[i]; j = i - 1; while (j > 0 && w[j] > v) { w[j + 1] = w[j]; j-- } w[j + 1] = v }
    mc[key] = median(c, k); mw[key] = median(w, k); runs[key] = k
  }
  printf "%7s %6s %-9s %5s %9s %9s %9s %9s\n", "cases", "stub", "mode", "runs", "cpu s", "wall s", "cpu/floor", "wall/floor"
  for (key in keys) {
    split(key, f, " ")
    fl = f[1] " " f[2] " floor"
    printf "%7d %6s %-9s %5d %9.3f %9.3f %9.2f %9.3f\n", f[1], f[2], f[3], runs[key], mc[key], mw[key], mc[key] / mc[fl], mw[key] / mw[fl] | "sort -k1,1n -k2,2 -k3,3"
  }
}'

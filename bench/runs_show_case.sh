#!/bin/sh
# Wall and CPU time of `assay runs show RUN --case ID` on a run of CASES
# cases (bench/bigrun, about KB KiB of observation a case), against the
# same binary's `assay --version` (the process alone: start, the package
# inits) and `assay runs` (open the store, list its runs). Each is run N
# times, the cases taken across the run; it prints the medians.
# Usage: bench/runs_show_case.sh [CASES] [KB] [N] [ASSAY]   (from the repository root)
#   e.g. bench/runs_show_case.sh 100000 2 21
#   ASSAY: a binary to measure instead of ./cmd/assay built here
set -eu
cases=${1:-100000}
kb=${2:-2}
n=${3:-21}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${4:-}" ]; then cp "$4" "$tmp/assay"; else go build -o "$tmp/assay" ./cmd/assay; fi
go build -o "$tmp/bigrun" ./bench/bigrun
cd "$tmp"
run=$(./bigrun -store st -cases "$cases" -kb "$kb")
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
measure() { # name, then the command
  name=$1
  shift
  i=0
  : >times
  while [ "$i" -lt "$n" ]; do
    id=$(printf 'q%07d' $(((i * 4799 + 17) % cases)))
    # shellcheck disable=SC2046
    /usr/bin/time -f '%e %U %S %M' -a -o times "$@" $([ "$name" = case ] && echo "$id") >/dev/null
    i=$((i + 1))
  done
  printf '%-8s wall %s s  cpu %s s  max RSS %s KiB  (median of %d)\n' "$name" \
    "$(awk '{print $1}' times | median)" "$(awk '{printf "%.2f\n", $2 + $3}' times | median)" "$(awk '{print $4}' times | median)" "$n"
}
echo "run of $cases cases; load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure version ./assay --version
measure runs ./assay runs --store st
measure case ./assay runs show "$run" --store st --case
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

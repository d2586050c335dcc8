#!/bin/sh
# Peak RSS of the `assay ui` process and the median latency of its
# drill-downs on two runs of CASES cases of one suite (bench/bigrun, about
# KB KiB of observation a case): a case page, a case diff (baseline ->
# candidate) and a history cell (the history of one case across the runs),
# each asked N times, the cases taken across the run. The process's peak
# RSS (VmHWM) is read after it starts and after each kind of page; the
# goal is 50 MB for the whole process, 100 ms a page.
# Usage: bench/ui_drilldown_memory.sh [CASES] [KB] [N] [PORT] [ASSAY]   (from the repository root)
#   e.g. bench/ui_drilldown_memory.sh 100000 2 15 19370
#   ASSAY: a binary to measure instead of ./cmd/assay built here
set -eu
cases=${1:-100000}
kb=${2:-2}
n=${3:-15}
port=${4:-19370}
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
if [ -n "${5:-}" ]; then cp "$5" "$tmp/assay"; else go build -o "$tmp/assay" ./cmd/assay; fi
go build -o "$tmp/bigrun" ./bench/bigrun
cd "$tmp"
base=$(./bigrun -store st -cases "$cases" -kb "$kb")
cand=$(./bigrun -store st -cases "$cases" -kb "$kb" -variant 3)
echo "two runs of $cases cases ($(du -sh st | cut -f1) store); load: $(cut -d' ' -f1-3 /proc/loadavg)"
./assay ui --store st --addr "127.0.0.1:$port" 2>ui.log &
pid=$!
url=http://127.0.0.1:$port
i=0
until curl -fs -o /dev/null "$url/assets/style.css" 2>/dev/null || curl -fs -o /dev/null "$url/history?suite=none" 2>/dev/null; do
  i=$((i + 1))
  if [ "$i" -gt 100 ]; then
    echo "assay ui did not start:" >&2
    cat ui.log >&2
    exit 2
  fi
  sleep 0.1
done
hwm() { awk '/^VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }
rss() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "started:     peak RSS $(hwm) MiB"
measure() { # name, then the path of case ID as a printf format
  name=$1
  fmt=$2
  i=0
  : >times
  while [ "$i" -lt "$n" ]; do
    id=$(printf 'q%07d' $(((i * 4799 + 17) % cases)))
    # shellcheck disable=SC2059
    path=$(printf "$fmt" "$id")
    out=$(curl -s -o body -w '%{http_code} %{time_total} %{size_download}' "$url$path")
    code=${out%% *}
    if [ "$code" != 200 ]; then
      echo "$name $path: status $code" >&2
      head -c 2000 body >&2
      exit 2
    fi
    echo "$out" | awk '{print $2 * 1000, $3}' >>times
    i=$((i + 1))
  done
  printf '%-12s median %6.1f ms  max %6.1f ms  %6d bytes  peak RSS %s MiB (now %s)  (%d requests)\n' "$name" \
    "$(awk '{print $1}' times | median)" "$(awk '{print $1}' times | sort -n | tail -1)" "$(awk '{print $2}' times | median)" "$(hwm)" "$(rss)" "$n"
}
measure "case page" "/run/$cand/case/%s"
measure "case diff" "/compare/case?base=$base&cand=$cand&id=%s"
measure "history cell" "/history?suite=big&case=%s"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

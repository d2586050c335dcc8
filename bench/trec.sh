#!/usr/bin/env bash
# CPU time and peak memory of `assay trec` on an MS MARCO-scale qrels/run
# pair (7,000 topics x 1,000 results = 7,000,000 run lines) made by the
# shared generator $SHARED/tools/gen_trec.py, for the four command lines
# whose trec_eval v10.0 output sha256 is published with it; then the same
# run with its lines shuffled (shuf.run, topics interleaved), whose output
# must be the same bytes. Not part of `go test`.
#
#   bench/trec.sh            # 5 runs per command line; RUNS=N to change
#
# The pair is generated once into $ASSAY_TREC_BIG (default /tmp/assay-trec-big)
# with $SHARED/tools/gen_trec.py (about 30 s) and checked against the
# published sha256.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
DIR=${ASSAY_TREC_BIG:-/tmp/assay-trec-big}
RUNS=${RUNS:-5}
mkdir -p "$DIR"

if [ ! -f "$DIR/big.run" ] || [ ! -f "$DIR/big.qrels" ]; then
  echo "generating the 7M-line pair into $DIR ..." >&2
  (cd "$DIR" && python3 "$SHARED/tools/gen_trec.py" --seed 7 --queries 7000 --depth 1000 \
    --judged-min 1 --judged-max 50 --norel-frac 0.02 --missing-frac 0 --extra-frac 0.0 \
    --tie-frac 0.05 --qid-style msmarco --docno-style int --tag bigrun \
    --out-qrels big.qrels --out-run big.run)
fi
check() { # file sha256
  local got
  got=$(sha256sum "$1" | cut -d' ' -f1)
  if [ "$got" != "$2" ]; then echo "$1: sha256 $got, want $2" >&2; exit 1; fi
}
check "$DIR/big.run" 4c19f3709041264da6cd70cb3a73d5061f839b72b9584dda96bab5a5dc95c48a
check "$DIR/big.qrels" 183e07416b869b9eb07457fb35a7ac2a01fad6a80635ddcbe2c107628d92cf74
if [ ! -f "$DIR/shuf.run" ]; then
  echo "shuffling the run into $DIR/shuf.run ..." >&2
  shuf --random-source=<(yes) "$DIR/big.run" > "$DIR/shuf.run"
fi
check "$DIR/shuf.run" ec3ec39d459f5774b266726099aa76a67e9e9893faa656526b1b3b88945948dd

(cd "$ROOT" && go build -o "$DIR/assay" ./cmd/assay)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| command | output sha256 = trec_eval's | CPU s (user+sys), median of $RUNS | peak RSS MiB, median |"
echo "|---|---|---|---|"
while IFS='|' read -r run args want; do
  cpu=(); rss=(); ok=yes
  for _ in $(seq "$RUNS"); do
    # shellcheck disable=SC2086
    /usr/bin/time -v -o "$DIR/time.txt" "$DIR/assay" trec $args "$DIR/big.qrels" "$DIR/$run" > "$DIR/out.txt"
    [ "$(sha256sum < "$DIR/out.txt" | cut -d' ' -f1)" = "$want" ] || ok=NO
    u=$(awk -F': ' '/User time/ {print $2}' "$DIR/time.txt")
    s=$(awk -F': ' '/System time/ {print $2}' "$DIR/time.txt")
    cpu+=("$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')")
    rss+=("$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$DIR/time.txt")")
  done
  echo "| \`assay trec $args${args:+ }big.qrels $run\` | $ok | $(printf '%s\n' "${cpu[@]}" | median) | $(printf '%s\n' "${rss[@]}" | median) |"
done <<'LIST'
big.run||788cc298da97f7c623d8058adee59e57df1db4cd91ef7d894d96a265b082b248
big.run|-m all_trec|b9008db891ec2b1a2f3114c274118c58f536c1f1fac4708a6d434b5df3d84668
big.run|-q|d587f118af8703eb76f4a325838657bd2769b4daef1a3cec7fe8b6cd924856a4
big.run|-q -m all_trec|b0f4393aeed2da89e4ce6b9722e8fdadb7dbb0a59a4202f0392d35cc1f305f03
big.run|-q -c -m all_trec|b0f4393aeed2da89e4ce6b9722e8fdadb7dbb0a59a4202f0392d35cc1f305f03
shuf.run||788cc298da97f7c623d8058adee59e57df1db4cd91ef7d894d96a265b082b248
shuf.run|-q -m all_trec|b0f4393aeed2da89e4ce6b9722e8fdadb7dbb0a59a4202f0392d35cc1f305f03
LIST
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

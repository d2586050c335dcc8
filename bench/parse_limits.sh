#!/bin/sh
# Wall time and peak RSS of `assay lint` / `assay run` on generated inputs of
# these classes: deep nesting, a 40,000-key
# mapping, 20,000 judgments, a 100 MB query or comment. Prints, for each
# input, the median wall time of RUNS runs and the largest peak RSS, with the
# exit status and the first line of stderr.
# Usage: bench/parse_limits.sh [RUNS] [ASSAY]   (from the repository root;
#   ASSAY is a binary to measure instead of one built from the tree)
set -eu
runs=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -ge 2 ]; then
  assay=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
else
  go build -o "$tmp/assay" ./cmd/assay
  assay=$tmp/assay
fi
cd "$tmp"

# the inputs
awk 'BEGIN { printf "assay: 1\ncases:\n  - id: q\n    query: q\n    tags: "; for (i = 0; i < 60000; i++) printf "["; print "" }' > deep_flow.yaml
awk 'BEGIN { printf "{\"assay\": 1, \"cases\": [{\"id\": \"q\", \"query\": \"q\", \"tags\": "; for (i = 0; i < 60000; i++) printf "["; print "" }' > deep.json
awk 'BEGIN { printf "assay: 1\ncases:\n  - id: q\n    query: q\n    tags:\n"; for (i = 0; i < 3000; i++) printf "%*sk:\n", 6 + i, "" }' > deep_block.yaml
awk 'BEGIN { printf "assay: 1\ncases:\n  - id: q\n    query: q\n    judgments:\n"; for (i = 0; i < 40000; i++) printf "      d%d: 1\n", i }' > map40k.yaml
awk 'BEGIN { printf "assay: 1\ncases:\n  - id: &q q\n    query: q\n    judgments:\n"; for (i = 0; i < 40000; i++) printf "      d%d: 1\n", i }' > map40k_anchor.yaml
awk 'BEGIN { printf "assay: 1\ncases:\n  - id: q\n    query: q\n    judgments: {d: 1"; for (i = 0; i < 40000; i++) printf ", d%d: 1", i; print "}\n  - {id: r, query: r, relevant: [d], k: 0}" }' > map40k_flow.yaml
awk 'BEGIN { printf "{\"assay\": 1, \"cases\": [{\"id\": \"q\", \"query\": \"q\", \"judgments\": {\"d\": 1"; for (i = 0; i < 40000; i++) printf ", \"d%d\": 1", i; print "}}, {\"id\": \"r\", \"query\": \"r\", \"relevant\": [\"d\"], \"k\": 0}]}" }' > map40k.json
awk 'BEGIN { printf "assay: 1\ncorpus: [{id: d0, text: descale the kettle monthly}]\ncases:\n  - id: q\n    query: how often is the kettle descaled\n    judgments:\n"; for (i = 0; i < 20000; i++) printf "      d%d: 1\n", i }' > judgments20k.yaml
awk 'BEGIN { printf "assay: 1\ncorpus: [{id: d0, text: descale the kettle monthly}]\ncases:\n"; for (i = 0; i < 20000; i++) printf "  - id: q%d\n    query: how often is the kettle descaled\n    judgments: {d0: 1}\n", i }' > cases20k.yaml
awk 'BEGIN { printf "assay: 1\ncorpus: [{id: d0, text: x}]\ncases:\n  - id: q\n    query: see d17 "; for (i = 0; i < 200000; i++) printf "word "; printf "\n    judgments:\n"; for (i = 0; i < 20000; i++) printf "      d%d: 1\n", i }' > judgments20k_query1mb.yaml
awk 'BEGIN { s = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; printf "assay: 1\ncorpus: [{id: d, text: x}]\ncases:\n  - id: q\n    query: "; for (i = 0; i < 1000000; i++) printf "%s", s; print "\n    relevant: [d]" }' > query100mb.yaml
awk 'BEGIN { s = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; printf "assay: 1\ncorpus: [{id: d, text: x}]\ncases:\n  - id: q\n    # "; for (i = 0; i < 1000000; i++) printf "%s", s; print "\n    query: q\n    relevant: [d]" }' > comment100mb.yaml

measure() { # VERB FILE
  i=0
  : > times
  while [ $i -lt "$runs" ]; do
    set +e
    /usr/bin/time -o t -f '%e %M' "$assay" $1 "$2" > /dev/null 2> err
    code=$?
    set -e
    grep -v "^Command" t >> times
    i=$((i+1))
  done
  first=$(grep -v '^Command exited' err | head -1 | cut -c1-90)
  sort -n times | awk -v v="$1" -v f="$2" -v c="$code" -v e="$first" '
    { t[NR] = $1; if ($2 > m) m = $2 }
    END { printf "%-14s %-26s %7.2f s  %5d MiB  exit %s  %s\n", v, f, t[int((NR + 1) / 2)], m / 1024, c, e }'
}

for f in deep_flow.yaml deep.json deep_block.yaml map40k.yaml map40k_anchor.yaml map40k_flow.yaml map40k.json judgments20k.yaml cases20k.yaml judgments20k_query1mb.yaml query100mb.yaml comment100mb.yaml; do
  measure lint "$f"
done
for f in judgments20k.yaml cases20k.yaml query100mb.yaml; do
  measure "run --no-store" "$f"
done

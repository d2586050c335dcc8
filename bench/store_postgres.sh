#!/bin/bash
# A 50,000-case run written to PostgreSQL and to a files store, side by side
# (goal: Postgres within 1.5x of the files store), `assay store copy` of
# that run from the files store into PostgreSQL, and `assay merge` of four
# shards of a 4,000-case run in PostgreSQL.
#
# The PostgreSQL server is started here with its default settings (fsync
# on, synchronous_commit on) in a temporary directory on 127.0.0.1:19345,
# as the postgres user when run as root (the way .ci/run starts its own),
# and stopped and removed at the end. Each `assay run` reads a JSONL suite
# and replays a recorded trace (-j 4), so both stores get the same cases;
# the figures are wall times, medians of RUNS interleaved pairs.
#
# Usage: bench/store_postgres.sh [CASES] [RUNS]     (from the repository root)
#   ASSAY=path/to/assay bench/store_postgres.sh     measures another build
set -eu
n=${1:-50000}
runs=${2:-3}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
port=19345
tmp=$(mktemp -d /tmp/assay-bench-pg.XXXX)
as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi; }
cleanup() {
	as_postgres "$PGBIN/pg_ctl -D $tmp/pg/data -m fast -w stop" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ -n "${ASSAY:-}" ]; then
	cp "$ASSAY" "$tmp/assay"
else
	go build -o "$tmp/assay" ./cmd/assay
fi
chmod 755 "$tmp"
mkdir "$tmp/pg"
[ "$(id -u)" != 0 ] || chown postgres:postgres "$tmp/pg"
as_postgres "$PGBIN/initdb -D $tmp/pg/data -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >$tmp/pg/initdb.log 2>&1" || { cat "$tmp/pg/initdb.log"; exit 1; }
as_postgres "$PGBIN/pg_ctl -D $tmp/pg/data -l $tmp/pg/server.log -w -t 30 -o \"-p $port -c listen_addresses=127.0.0.1 -k $tmp/pg\" start" >/dev/null || { cat "$tmp/pg/server.log"; exit 1; }
url="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
printf 'server: fsync=%s synchronous_commit=%s\n' \
	"$("$PGBIN/psql" -At "$url" -c 'SHOW fsync')" "$("$PGBIN/psql" -At "$url" -c 'SHOW synchronous_commit')"

cd "$tmp"
# The suite (a header, then one case a line, two judged documents each) and
# the trace it replays: ten retrieved documents with a snippet and an
# answer per case, about 2.5 kB of JSON, the size of a usual observation.
awk -v n="$n" 'BEGIN {
	print "{\"assay\": 1, \"name\": \"pgbench\"}"
	for (i = 0; i < n; i++)
		printf "{\"id\": \"q%06d\", \"query\": \"question number %d about the product\", \"judgments\": {\"d%d\": 2, \"d%d\": 1}, \"expect\": {\"answer_includes\": [\"answer\"]}}\n", i, i, i % 997, (i + 1) % 997
}' >suite.jsonl
awk -v n="$n" 'BEGIN {
	snip = "snippet text of the retrieved passage snippet text of the retrieved passage snippet text of the retrieved passage"
	for (i = 0; i < n; i++) {
		printf "{\"case\": \"q%06d\", \"trial\": 0, \"retrieved\": [", i
		for (j = 0; j < 10; j++)
			printf "%s{\"id\": \"d%d\", \"score\": %d, \"title\": \"Document title\", \"text\": \"%s\"}", (j ? ", " : ""), (i + j * 7) % 997, 10 - j, snip
		printf "], \"answer\": \"%s an answer of a few sentences. an answer of a few sentences. an answer of a few sentences.\", \"latency_ms\": 5, \"refused\": false}\n", (i % 10 ? "" : "no")
	}
}' >trace.jsonl

secs() {
	local s e
	s=$(date +%s.%N)
	"$@" >/dev/null 2>err.txt || { cat err.txt >&2; exit 1; }
	e=$(date +%s.%N)
	echo "$s $e" | awk '{ printf "%.2f", $2 - $1 }'
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
head -4001 suite.jsonl >suite4k.jsonl
files="" pg="" copy="" merge=""
for i in $(seq "$runs"); do
	PGOPTIONS=--client-min-messages=warning "$PGBIN/psql" -q "$url" -c "DROP SCHEMA IF EXISTS r$i CASCADE; CREATE SCHEMA r$i; DROP SCHEMA IF EXISTS c$i CASCADE; CREATE SCHEMA c$i; DROP SCHEMA IF EXISTS m$i CASCADE; CREATE SCHEMA m$i" >/dev/null
	for s in r c m; do ./assay store migrate --store "$url&search_path=$s$i" >/dev/null; done
	f=$(secs ./assay run suite.jsonl --target replay:trace.jsonl -j 4 --store "files$i")
	p=$(secs ./assay run suite.jsonl --target replay:trace.jsonl -j 4 --store "$url&search_path=r$i")
	c=$(secs ./assay store copy "files$i" "$url&search_path=c$i")
	for k in 0 1 2 3; do
		./assay run suite4k.jsonl --target replay:trace.jsonl --shard "$k/4" --group "g$i" --store "$url&search_path=m$i" >/dev/null 2>&1
	done
	m=$(secs ./assay merge "g$i" --store "$url&search_path=m$i")
	printf 'pair %d: files %s s, postgres %s s, store copy into postgres %s s, merge of 4,000 cases %s s\n' "$i" "$f" "$p" "$c" "$m"
	files="$files $f" pg="$pg $p" copy="$copy $c" merge="$merge $m"
	rm -rf "files$i"
done
mf=$(echo "$files" | median) mp=$(echo "$pg" | median) mc=$(echo "$copy" | median) mm=$(echo "$merge" | median)
printf '%d cases, median of %d: files store %s s, postgres %s s, ratio %s (goal <= 1.5); store copy of the run into postgres %s s; merge of 4 shards, 4,000 cases, in postgres %s s\n' \
	"$n" "$runs" "$mf" "$mp" "$(echo "$mp $mf" | awk '{ printf "%.2f", $1 / $2 }')" "$mc" "$mm"
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

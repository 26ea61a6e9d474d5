#!/bin/sh
# Counts, with callgrind, the instructions one small request costs in each variant of the
# benchmark's features phase, and prints them as a Markdown table beside `plain` and `bare`.
#
#   swift build -c release --package-path Examples --product Benchmark
#   Examples/Scripts/feature-instructions.sh [VARIANT ...]     # default: all eleven
#
# Each variant runs twice under callgrind, with LOW and HIGH requests (default 200 and 600) after
# the same warm-up, against a DemoServer started here (valgrind cannot start it); the instructions
# per request are (total at HIGH - total at LOW) / (HIGH - LOW): start-up, warm-up and shut-down
# cancel out. Counts do not depend on the machine's load, but the same binary's count moves
# between runs (the dispatch timers' work: a few thousand instructions per request, and bare
# URLSession now and then ~20k lower), so each variant is counted ROUNDS times (default 3), the
# variants in turn, and the median is printed. Environment: BIN (the release folder, default
# Examples/.build/release), LOW, HIGH, ROUNDS, OUT (where the callgrind files go, default a new
# temporary folder).
set -eu

examples=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$examples/.build/release}
low=${LOW:-200}
high=${HIGH:-600}
out=${OUT:-$(mktemp -d)}
variants=${*:-bare bare-no-cookies plain plain-no-cookies cache coalescing monitor retrier main-actor progress load-hook}
mkdir -p "$out"

# valgrind 3.19 cannot read the binary's debug info: count a copy without it.
strip -g -o "$out/Benchmark.nodebug" "$bin/Benchmark"

"$bin/DemoServer" --port 0 >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT INT TERM
url=
for _ in $(seq 100); do
    url=$(sed -n 's|.*listening on \(http://[0-9.]*:[0-9]*\).*|\1|p' "$out/server.log" | head -n 1)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "the DemoServer did not start: $(cat "$out/server.log")" >&2; exit 1; }

# Dictionaries and sets hash the same way in every run, so that equal runs count the same.
export SWIFT_DETERMINISTIC_HASHING=1

total() {
    callgrind_annotate "$1" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}

echo "server $url; instructions per request = (total at $high - total at $low) / $((high - low))" >&2
rounds=${ROUNDS:-3}
runs=
for round in $(seq "$rounds"); do
    for variant in $variants; do
        for n in $low $high; do
            if ! valgrind --tool=callgrind --callgrind-out-file="$out/cg.$variant.$n.$round" \
                "$out/Benchmark.nodebug" --only features --side "$variant" --requests "$n" --rounds 1 \
                --server "$url" >"$out/log.$variant.$n.$round" 2>&1; then
                echo "$variant at $n requests failed; see $out/log.$variant.$n.$round" >&2
                exit 1
            fi
        done
        per=$((($(total "$out/cg.$variant.$high.$round") - $(total "$out/cg.$variant.$low.$round")) / (high - low)))
        echo "$variant, round $round: $per instructions per request" >&2
        runs="$runs$variant $per
"
    done
done

# The median of each variant's rounds, in the order the variants were named.
results=
for variant in $variants; do
    median=$(printf '%s' "$runs" | awk -v v="$variant" '$1 == v { print $2 }' | sort -n \
        | awk '{ c[NR] = $1 } END { print (NR % 2) ? c[(NR + 1) / 2] : int((c[NR / 2] + c[NR / 2 + 1]) / 2) }')
    results="$results$variant $median
"
done

printf '%s' "$results" | awk '
    { name[NR] = $1; count[NR] = $2; by[$1] = $2 }
    END {
        print "| variant | instructions / request (median) | × plain | × bare |"
        print "|---|---:|---:|---:|"
        for (i = 1; i <= NR; i++) {
            plain = ("plain" in by) ? sprintf("%.3f", count[i] / by["plain"]) : "-"
            bare = ("bare" in by) ? sprintf("%.3f", count[i] / by["bare"]) : "-"
            printf "| %s | %d | %s | %s |\n", name[i], count[i], plain, bare
        }
    }'
echo "callgrind files and logs: $out" >&2

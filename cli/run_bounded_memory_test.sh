#!/usr/bin/env bash
# run --check of a text trace far larger than the memory it may use: a
# generated trace of about 200 MB checked with the address space limited to
# 256 MiB (a whole-trace run needs about 5.5 times the file), from the file
# and from a pipe. Not under
# ASan, whose shadow memory needs more address space than any limit here.
#   run_bounded_memory_test.sh MWCHECK SCRATCH
set -euo pipefail
mwcheck=$1 dir=$2
mkdir -p "$dir"
trace=$dir/bounded.mwt
"$mwcheck" gen --ops 3000000 --seed 5 -o "$trace" >/dev/null
size=$(stat -c %s "$trace")
[ "$size" -gt $((150 << 20)) ] || { echo "the trace is only $size bytes"; exit 1; }
( ulimit -v $((256 << 10)); "$mwcheck" run --check --quiet --profile rxe "$trace" )
echo "run --check of $size bytes within 256 MiB of address space"
# The same through a pipe, read once (one pass, the tables grown piece by piece).
cat "$trace" | ( ulimit -v $((256 << 10)); "$mwcheck" run --check --quiet --profile rxe - )
echo "run --check of $size bytes from a pipe within 256 MiB of address space"
rm -f "$trace"

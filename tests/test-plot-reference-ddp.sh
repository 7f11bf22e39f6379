#!/bin/sh
# plots/reference-ddp.sh, the DDP suite's picture: its CSV holds every entry
# test-reference counts (the "all N entries" of each summary: (a) scaling,
# (b) uncalibrated, (c) transfer), each with a published and a predicted
# per-GPU throughput, and the picture is a PNG; a build folder without the
# test is refused with one line and no files.
set -u
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"
if sh "$top/plots/reference-ddp.sh" "$build" "$tmp/suite.png" > "$tmp/out" 2>&1; then ok; else ko "script failed: $(cat "$tmp/out")"; fi
"$build/tests/test-reference" > "$tmp/test" 2>&1
for kind in scaling uncalibrated transfer; do
  want=$(grep "^$kind.*: all [0-9]* entries" "$tmp/test" | sed 's/.*: all \([0-9]*\) entries.*/\1/')
  got=$(grep -c "^$kind," "$tmp/suite.csv")
  if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else ko "$kind: $got rows in the CSV, the test counts '$want'"; fi
done
if awk -F, 'NR > 1 && !($3 > 0 && $4 > 0) { bad = 1 } END { exit bad }' "$tmp/suite.csv"; then ok; else ko "a row without both throughputs"; fi
plot_checks "$top/plots/reference-ddp.sh" "$tmp/suite.png" test-reference
finish plot-reference-ddp

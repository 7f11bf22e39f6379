#!/bin/sh
# plots/reference-ddp.sh, the DDP suite's picture: its CSV holds every entry
# test-reference writes to its entries file (tests/reference-entries.h:
# (a) scaling, (b) one GPU uncalibrated, (c) transfer), each with a
# published and a predicted per-GPU throughput, and the picture is a PNG; a
# build folder without the test is refused with one line and no files.
set -u
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"
if sh "$top/plots/reference-ddp.sh" "$build" "$tmp/suite.png" > "$tmp/out" 2>&1; then ok; else ko "script failed: $(cat "$tmp/out")"; fi
DPS_REFERENCE_ENTRIES=$tmp/entries.csv "$build/tests/test-reference" > /dev/null 2>&1
for k in scaling:scaling uncalibrated:one-gpu transfer:transfer; do
  kind=${k%%:*} entry=${k#*:}
  want=$(awk -F, -v e="$entry" 'NR > 1 && $1 == "ddp" && $2 == e' "$tmp/entries.csv" | wc -l)
  got=$(grep -c "^$kind," "$tmp/suite.csv")
  if [ "$want" -gt 0 ] && [ "$got" = "$want" ]; then ok; else ko "$kind: $got rows in the CSV, the test's entries $want"; fi
done
if awk -F, 'NR > 1 && !($3 > 0 && $4 > 0) { bad = 1 } END { exit bad }' "$tmp/suite.csv"; then ok; else ko "a row without both throughputs"; fi
plot_checks "$top/plots/reference-ddp.sh" "$tmp/suite.png" test-reference
finish plot-reference-ddp

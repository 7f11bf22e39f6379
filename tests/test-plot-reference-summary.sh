#!/bin/sh
# plots/reference-summary.sh, the published summaries' picture: its CSV
# holds every figure of tests/reference/summary/*.csv (one row each, the
# busbw as the file prints it beside the model's), and the picture is a
# PNG; a build folder without dpscale is refused with one line and no files.
set -u
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"
if sh "$top/plots/reference-summary.sh" "$build" "$tmp/s.png" > "$tmp/out" 2>&1; then ok; else ko "script failed: $(cat "$tmp/out")"; fi
want=$(cat "$top"/tests/reference/summary/*.csv | grep -v '^#' | grep -vc '^label,')
got=$(($(wc -l < "$tmp/s.csv") - 1))
if [ "$got" -eq "$want" ]; then ok; else ko "$got rows in the CSV, $want figures in the files"; fi
# every measured figure is one of the files' own, as printed
cat "$top"/tests/reference/summary/*.csv | grep -v '^#' | grep -v '^label,' | cut -d, -f4 | sort > "$tmp/printed"
tail -n +2 "$tmp/s.csv" | cut -d, -f6 | sort > "$tmp/plotted"
if cmp -s "$tmp/printed" "$tmp/plotted"; then ok; else ko "the CSV's measured column differs from the files'"; fi
if awk -F, 'NR > 1 && !($7 > 0) { bad = 1 } END { exit bad }' "$tmp/s.csv"; then ok; else ko "a row without a prediction"; fi
plot_checks "$top/plots/reference-summary.sh" "$tmp/s.png" dpscale
finish plot-reference-summary

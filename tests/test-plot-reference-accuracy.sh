#!/bin/sh
# plots/reference-accuracy.sh, the README's accuracy picture: its CSV (the
# format of tests/reference-entries.h) holds the eight series it draws,
# each with every entry its suite's test predicts (the DDP suite's 161
# scaling, 60 one-GPU and 154 transfer entries; more than 30 for each of
# the others), every error a number; the picture is a PNG; a build folder
# without dpscale is refused with one line and no files.
set -u
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"
if sh "$top/plots/reference-accuracy.sh" "$build" "$tmp/a.png" > "$tmp/out" 2>&1; then ok; else ko "script failed: $(cat "$tmp/out")"; fi
if [ "$(head -1 "$tmp/a.csv")" = "suite,prediction,table,gpus,error_pct,published,predicted" ]; then ok; else ko "header: $(head -1 "$tmp/a.csv")"; fi
counts=$(awk -F, 'NR > 1 { n[$1 " " $2]++ } END { for (k in n) print k, n[k] }' "$tmp/a.csv" | sort | tr '\n' ';')
if echo "$counts" | grep -q "ddp one-gpu 60;ddp scaling 161;ddp transfer 154;" \
   && awk -v c="$counts" 'BEGIN { n = split (c, l, ";"); for (i = 1; i < n; i++) { split (l[i], f, " "); k++; if (f[3] < 30) bad = 1 }
                                  exit bad || k != 8 }'; then ok; else ko "series and entries: $counts"; fi
# every error a number; published and predicted both numbers, or both
# empty (a sharded or 3D scaling entry: a ratio of ratios)
if awk -F, 'NR > 1 && ($5 !~ /^-?[0-9]+(\.[0-9]+)?$/ || NF != 7 || (($6 == "") != ($7 == "")) \
             || ($6 != "" && !($6 > 0 && $7 > 0)) || ($6 == "" && $2 != "scaling")) { bad = 1 } END { exit bad }' "$tmp/a.csv"; then ok
else ko "an entry without a numeric error, or with half a throughput pair"; fi
plot_checks "$top/plots/reference-accuracy.sh" "$tmp/a.png" dpscale
finish plot-reference-accuracy

#!/bin/sh
# Draws the DDP training suite's predictions against the published figures:
#   sh plots/reference-ddp.sh [BUILD_DIR] [OUT.png]
# runs BUILD_DIR/tests/test-reference (default build), keeps every entry it
# prints (per-GPU samples/s, published and predicted) in OUT's .csv beside
# the picture, and plots them with plots/reference-ddp.gp.
set -eu
build=${1:-build}
out=${2:-reference-ddp.png}
here=$(cd "$(dirname "$0")" && pwd)
case $out in *[[:cntrl:]]*) echo "reference-ddp.sh: a control character in $out: no file name for gnuplot" >&2; exit 1 ;; esac
csv=${out%.*}.csv
[ -x "$build/tests/test-reference" ] || { echo "reference-ddp.sh: $build/tests/test-reference not built" >&2; exit 1; }
tmp=$(mktemp) && trap 'rm -f "$tmp"' EXIT
"$build/tests/test-reference" > "$tmp" 2>&1 || { echo "reference-ddp.sh: test-reference failed (see its output: $build/tests/test-reference)" >&2; exit 1; }
# (a) "... from N: P per GPU, published Q ...", (b) "... : P predicted,
# published Q ..." on a file, (c) the same with "A -> B"
awk 'BEGIN { print "kind,file,published_per_gpu,predicted_per_gpu" }
     / per GPU, published / { for (i = 1; i <= NF; i++) { if ($i == "per") p = $(i - 1); if ($i == "published") q = $(i + 1) }
                             print "scaling," $1 "," q "," p; next }
     / predicted, published / { for (i = 1; i <= NF; i++) { if ($i == "predicted,") p = $(i - 1); if ($i == "published") q = $(i + 1) }
                               print ($2 == "->" ? "transfer," $3 : "uncalibrated," $1) "," q "," p }' "$tmp" > "$csv.part"
mv "$csv.part" "$csv"
# the paths as gnuplot literals: in single quotes (gnuplot expands nothing
# there) with a quote doubled, a relative one after "./" (never "<cmd")
gp_path () { case $1 in /*) p=$1 ;; *) p=./$1 ;; esac; printf "'%s'" "$(printf '%s' "$p" | sed "s/'/''/g")"; }
gnuplot -e "datafile=$(gp_path "$csv"); outfile=$(gp_path "$out")" "$here/reference-ddp.gp"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) entries) and $out"

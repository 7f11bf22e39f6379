#!/bin/sh
# Draws the DDP training suite's predictions against the published figures:
#   sh plots/reference-ddp.sh [BUILD_DIR] [OUT.png]
# runs BUILD_DIR/tests/test-reference (default build), keeps every entry it
# writes (DPS_REFERENCE_ENTRIES, tests/reference-entries.h: per-GPU
# samples/s, published and predicted) in OUT's .csv beside the picture, and
# plots them with plots/reference-ddp.gp.
set -eu
build=${1:-build}
out=${2:-reference-ddp.png}
here=$(cd "$(dirname "$0")" && pwd)
case $out in *[[:cntrl:]]*) echo "reference-ddp.sh: a control character in $out: no file name for gnuplot" >&2; exit 1 ;; esac
csv=${out%.*}.csv
[ -x "$build/tests/test-reference" ] || { echo "reference-ddp.sh: $build/tests/test-reference not built" >&2; exit 1; }
tmp=$(mktemp) && trap 'rm -f "$tmp"' EXIT
: > "$tmp"
DPS_REFERENCE_ENTRIES=$tmp "$build/tests/test-reference" > /dev/null 2>&1 \
  || { echo "reference-ddp.sh: test-reference failed (see its output: $build/tests/test-reference)" >&2; exit 1; }
# its entries (tests/reference-entries.h: suite, prediction, table, gpus,
# error_pct, published, predicted), the DDP suite's: (a) scaling, (b) one
# GPU uncalibrated, (c) transfer between generations
awk -F, 'BEGIN { print "kind,file,published_per_gpu,predicted_per_gpu"; kind["scaling"] = "scaling"
                 kind["one-gpu"] = "uncalibrated"; kind["transfer"] = "transfer" }
         NR > 1 && $1 == "ddp" && ($2 in kind) { print kind[$2] "," $3 "," $6 "," $7 }' "$tmp" > "$csv.part"
mv "$csv.part" "$csv"
# the paths as gnuplot literals: in single quotes (gnuplot expands nothing
# there) with a quote doubled, a relative one after "./" (never "<cmd")
gp_path () { case $1 in /*) p=$1 ;; *) p=./$1 ;; esac; printf "'%s'" "$(printf '%s' "$p" | sed "s/'/''/g")"; }
gnuplot -e "datafile=$(gp_path "$csv"); outfile=$(gp_path "$out")" "$here/reference-ddp.gp"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) entries) and $out"

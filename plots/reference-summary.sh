#!/bin/sh
# Draws the published summaries (tests/reference/summary: one bus bandwidth
# a run) against dpscale's predictions:
#   sh plots/reference-summary.sh [BUILD_DIR] [OUT.png]
# runs tests/test-reference-summary.sh with BUILD_DIR/dpscale (default
# build), keeps every figure and its prediction in OUT's .csv beside the
# picture, and plots them with plots/reference-summary.gp.
set -eu
build=${1:-build}
out=${2:-reference-summary.png}
here=$(cd "$(dirname "$0")" && pwd)
case $out in *[[:cntrl:]]*) echo "reference-summary.sh: a control character in $out: no file name for gnuplot" >&2; exit 1 ;; esac
csv=${out%.*}.csv
[ -x "$build/dpscale" ] || { echo "reference-summary.sh: $build/dpscale not built" >&2; exit 1; }
tmp=$(mktemp) && trap 'rm -f "$tmp"' EXIT
sh "$here/../tests/test-reference-summary.sh" "$build/dpscale" "$tmp" > /dev/null 2>&1 \
  || { echo "reference-summary.sh: tests/test-reference-summary.sh failed (run it for its output)" >&2; exit 1; }
cp "$tmp" "$csv.part" && mv "$csv.part" "$csv"
# the paths as gnuplot literals: in single quotes (gnuplot expands nothing
# there) with a quote doubled, a relative one after "./" (never "<cmd")
gp_path () { case $1 in /*) p=$1 ;; *) p=./$1 ;; esac; printf "'%s'" "$(printf '%s' "$p" | sed "s/'/''/g")"; }
gnuplot -e "datafile=$(gp_path "$csv"); outfile=$(gp_path "$out")" "$here/reference-summary.gp"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) figures) and $out"

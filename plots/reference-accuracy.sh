#!/bin/sh
# How well dpscale predicts, in one picture: for each reference suite and
# prediction, the fraction of its entries within a given |error|:
#   sh plots/reference-accuracy.sh [BUILD_DIR] [OUT.png]
# runs the three training suites' tests (BUILD_DIR/tests/test-reference,
# -fsdp, -parallel) with DPS_REFERENCE_ENTRIES naming OUT's .csv (the
# format: tests/reference-entries.h), appends the collective suite's rows
# of 64 KiB and more from `dpscale collective --compare --format csv`
# (tests/reference/nccl), and plots each series' distribution of |error|
# with plots/reference-accuracy.gp.
set -eu
build=${1:-build}
out=${2:-reference-accuracy.png}
here=$(cd "$(dirname "$0")" && pwd)
case $out in *[[:cntrl:]]*) echo "reference-accuracy.sh: a control character in $out: no file name for gnuplot" >&2; exit 1 ;; esac
csv=${out%.*}.csv
for t in dpscale tests/test-reference tests/test-reference-fsdp tests/test-reference-parallel; do
  [ -x "$build/$t" ] || { echo "reference-accuracy.sh: $build/$t not built" >&2; exit 1; }
done
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
for t in test-reference test-reference-fsdp test-reference-parallel; do
  DPS_REFERENCE_ENTRIES=$tmp/entries.csv "$build/tests/$t" > "$tmp/$t.out" 2>&1 \
    || { echo "reference-accuracy.sh: $t failed (run $build/tests/$t for its output)" >&2; exit 1; }
done
# shellcheck disable=SC2046
"$build/dpscale" collective --compare $(ls "$here"/../tests/reference/nccl/*.ref) --format csv > "$tmp/nccl.csv" \
  || { echo "reference-accuracy.sh: dpscale collective --compare failed" >&2; exit 1; }
# its columns: 1 file, 5 ranks, 7 size_bytes, 10 and 11 measured and
# predicted busbw (GB/s), 14 error_pct (of busbw)
awk -F, 'NR > 1 && $7 >= 65536 { print "nccl,busbw," $1 "," $5 "," $14 "," $10 "," $11 }' "$tmp/nccl.csv" >> "$tmp/entries.csv"
cp "$tmp/entries.csv" "$csv.part" && mv "$csv.part" "$csv"
# each series: its entries' |error| in order against their share (an
# empirical distribution), one gnuplot block each, in the order of
# plots/reference-accuracy.gp; its legend: name, entries, median |error|
titles=""
for k in "nccl busbw collectives" "ddp scaling DDP-scaling" "ddp one-gpu DDP-one-GPU" "ddp transfer DDP-transfer" \
         "fsdp scaling sharded-scaling" "fsdp absolute sharded-absolute" "parallel scaling 3D-scaling" \
         "parallel absolute 3D-absolute"; do
  set -- $k
  awk -F, -v s="$1" -v p="$2" 'NR > 1 && $1 == s && $2 == p { print ($5 < 0 ? -$5 : $5) }' "$csv" | sort -g > "$tmp/series"
  n=$(wc -l < "$tmp/series")
  [ "$n" -gt 0 ] || { echo "reference-accuracy.sh: no $1 $2 entries" >&2; exit 1; }
  awk -v n="$n" 'BEGIN { print 0, 0 } { print $1, NR / n }' "$tmp/series" >> "$tmp/cdf.dat"
  printf '\n\n' >> "$tmp/cdf.dat"
  m=$(awk -v n="$n" '{ e[NR] = $1 } END { print n % 2 ? e[(n + 1) / 2] : (e[n / 2] + e[n / 2 + 1]) / 2 }' "$tmp/series")
  titles="$titles'$(echo "$3" | tr - ' '): $n, median $(printf %.1f "$m")%' "
done
# the paths as gnuplot literals: in single quotes (gnuplot expands nothing
# there) with a quote doubled, a relative one after "./" (never "<cmd")
gp_path () { case $1 in /*) p=$1 ;; *) p=./$1 ;; esac; printf "'%s'" "$(printf '%s' "$p" | sed "s/'/''/g")"; }
gnuplot -e "datafile=$(gp_path "$tmp/cdf.dat"); outfile=$(gp_path "$out"); titles=\"$titles\"" "$here/reference-accuracy.gp"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) entries) and $out"

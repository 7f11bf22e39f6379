#!/bin/sh
# Calibration that transfers, on the published record: for every system of
# tests/reference/nccl/ published at more than one scale, `dpscale
# calibrate --import` the smaller scale(s) only, then `dpscale collective
# --compare` the largest with that profile.  Figures: median |error| of
# busbw over the largest scale's rows of 1 MiB and more, calibrated and,
# for comparison, uncalibrated.
#
# Bars, agreed for this suite (figures when they were set, 2026-12-03:
# voltagepark 1->4 nodes 19.5%, dell 2->4 9.3%, gcp-a4-b200 1->2 10.2%,
# gjaion 2+4->8 17.3%, a100-fair 1->2 8.3%; the issue's target is 10% for
# every system, met by 2 of 5; README "Calibration that transfers"; with
# NCCL's trees, NVLS's switch-only efficiency and 8 channels on HGX
# B200, the same day: 10.3%, 2.6%, 3.5%, 10.4%, 8.3%, 3 of 5; with the
# network fit's prior, noise from its residual and figures only where the
# groups exercise them: 11.6%, 2.6%, 3.5%, 8.3%, 6.1%, 4 of 5, median 6.1%;
# an NVSwitch's bandwidth known within 10%: 11.0%, 2.1%, 3.5%, 8.2%, 6.1%;
# the latency figures scaling NCCL's steps, not its base: 9.7%, 1.9%,
# 3.3%, 8.1%, 6.1%, the issue's target met by all five; 2026-12-05, with a
# tree's fill in proportion to its depth: 5.7%, 3.6%, 3.4%, 9.5%, 6.1%;
# the same day, OCI's GB300 trays, 1 and 2 trays of an NVL72 rack
# predicting 16, once `calibrate --import` read a reference's header
# counts (its 2-tray paste elides four of eight Rank lines): 7.0%; with
# the NICs at 0.97 and one NCCL channel at most 20.5 GB/s across nodes:
# 4.0%, 8.7%, 5.6%, 9.4%, 6.1%, 7.0%, median 6.5%):
#   - the median over the systems at most 8% (15% for the first figures)
#   - every system within 10% (2 for the first figures, then 3, then 4)
# And an exact check: a measured group keeps its own shape (its fitted
# sizes come back within 0.01%: the per-size correction on the network fit)
set -u
dpscale=$1
top=$(cd "$(dirname "$0")/.." && pwd)
R=$top/tests/reference/nccl
. "$(dirname "$0")/cli-lib.sh"
err_1m () { awk -F, 'NR > 1 && $7 >= 1048576 { e = $14 < 0 ? -$14 : $14; print e }' "$1" | median; }

: > "$tmp/figures"
transfer () {   # name topology largest smaller...
  name=$1 topo=$2 big=$3
  shift 3
  args=""
  for s in "$@"; do args="$args --import $R/$s.ref"; done
  # shellcheck disable=SC2086
  if ! "$dpscale" calibrate $args --topology "$topo" -o "$tmp/$name.calib" > "$tmp/$name.out" 2>&1; then
    ko "$name: calibrate --import failed: $(tail -1 "$tmp/$name.out")"
    return
  fi
  "$dpscale" collective --compare "$R/$big.ref" -C "$tmp/$name.calib" --format csv > "$tmp/$name-c.csv" || { ko "$name: compare -C failed"; return; }
  "$dpscale" collective --compare "$R/$big.ref" --format csv > "$tmp/$name-u.csv" || { ko "$name: compare failed"; return; }
  c=$(err_1m "$tmp/$name-c.csv") u=$(err_1m "$tmp/$name-u.csv")
  printf '  %-14s %-44s -> %-34s calibrated %5.1f%%  uncalibrated %5.1f%%\n' "$name" "$*" "$big" "$c" "$u"
  echo "$c" >> "$tmp/figures"
  ok
}
echo "fit on the smaller scales, predict the largest (rows >= 1 MiB, |busbw error|):"
transfer voltagepark dgx-h100 voltagepark-h100-ib-4n-allreduce voltagepark-h100-ib-1n-allreduce
transfer dell dgx-h100 dell-xe9680-h100-ib-4n-allreduce dell-xe9680-h100-ib-2n-allreduce
transfer gcp-a4-b200 hgx-b200 gcp-a4-b200-2n-allreduce gcp-a4-b200-1n-allreduce
transfer gjaion dgx-h100 h100-ib400-gjaion-8n-allreduce h100-ib400-gjaion-2n-allreduce h100-ib400-gjaion-4n-allreduce
transfer a100-fair dgx-a100 a100-fair-gcm-2n-allreduce a100-fair-gcm-1n-allreduce
transfer oci-gb300 gb300-nvl72 oci-gb300-16n-allreduce oci-gb300-1n-allreduce oci-gb300-2n-allreduce
m=$(median < "$tmp/figures")
within=$(awk '$1 <= 10' "$tmp/figures" | wc -l)
echo "median over systems $m%, $within within 10%"
if awk "BEGIN { exit !($m <= 8) }"; then ok; else ko "median over systems $m% > 8%"; fi
if [ "$within" -ge 6 ]; then ok; else ko "only $within systems within 10%"; fi

# the measured group itself: every other size was fitted (the rest held
# out), and those come back exactly
"$dpscale" collective --compare "$R/dell-xe9680-h100-ib-2n-allreduce.ref" -C "$tmp/dell.calib" --format csv > "$tmp/self.csv"
exact=$(awk -F, 'NR > 1 { e = $14 < 0 ? -$14 : $14; if (e < 0.01) n++ } END { print n + 0 }' "$tmp/self.csv")
rows=$(($(wc -l < "$tmp/self.csv") - 1))
if [ "$exact" -ge $((rows / 2)) ]; then ok; else ko "$exact of $rows measured rows reproduced within 0.01%"; fi

# a table that names no hosts (no '#  Rank' lines: GCP A4's 2 nodes, its
# 16 ranks from busbw / algbw) fills the nodes its ranks need on the
# topology (8 GPUs each: 2), so that the NICs are fitted (they decide its
# large sizes), not a single node of 16 ranks that they never carry
"$dpscale" calibrate --import "$R/gcp-a4-b200-2n-allreduce.ref" --topology hgx-b200 -o "$tmp/a4-2n.calib" > "$tmp/a4-2n.out" 2>&1
if grep -q '^\[measure.allreduce.16.2\]' "$tmp/a4-2n.calib" && grep -q '^nic_bw=' "$tmp/a4-2n.calib"; then ok
else ko "GCP A4's 16 ranks without hosts: not 2 nodes with the NICs fitted ($(grep '^\[measure' "$tmp/a4-2n.calib"))"; fi

finish reference-transfer

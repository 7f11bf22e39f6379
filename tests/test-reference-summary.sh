#!/bin/sh
# The collective model against published summaries: one bus bandwidth a
# run, where the author printed no table (tests/reference/summary/*.csv,
# each file's header giving its source, pinned, and what was inferred).
# Each figure is predicted, uncalibrated, by `dpscale collective` on the
# layout the file's `dpscale` column names, at the printed size.
#
# Why these matter beside the suite (tests/reference/nccl): GCP's own
# example tables of A4X trays (gcp-a4x-*.ref) level off at 454-482 GB/s of
# all-gather, two thirds of the model and of NCCL's figure for NVLink 5;
# the same machine type, measured by another author with gIB 1.1.2 (NCCL
# 2.30.4), reaches 673-693 GB/s on 8 to 144 GPUs, within 6% of the model.
#
# Bars, agreed when the files were added (2026-12-05: A4X's 27 figures,
# median |error| 4.0%, worst +15.6%, two racks' all-reduce, where NVLSTree
# between two racks of 72 measures 748 GB/s and the model's NVLS 865; with
# NVIDIA/nccl#1801's four GB200 partitions over InfiniBand, 31 figures,
# median 4.4%, worst -24.3% (-24.4% once a call paid the skew of the
# hosts of an NVLink domain): a tree forced across 3 partitions of 8 GPUs
# reaches 486 GB/s under NCCL 2.27.3, where NCCL 2.28's per-channel tree
# ceiling for Blackwell, which the model takes, allows 367):
#   - every figure predicted (a row that cannot be read or run fails)
#   - median |error| of busbw at most 8% (the suite's tables of 256 MiB and
#     more are held to 7% by the issue, every system's median to 20%)
#   - every figure within 25%
# Usage: test-reference-summary.sh DPSCALE_BINARY [OUT.csv]
# (OUT.csv: every figure with its prediction, for plots/reference-summary.sh)
set -u
dpscale=$1
csv=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"

n=0
: > "$tmp/out"
for f in "$top"/tests/reference/summary/*.csv; do
  name=$(basename "$f" .csv)
  # the header line names the columns this reads
  if grep -v '^#' "$f" | head -1 | grep -q '^label,op,size_bytes,busbw_GBps,date,line,topology,dpscale$'; then ok
  else ko "$name: no 'label,op,size_bytes,busbw_GBps,date,line,topology,dpscale' header"; continue; fi
  grep -v '^#' "$f" | tail -n +2 > "$tmp/rows"
  while IFS=, read -r label op size bw _date line topo args; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    if "$dpscale" collective --topology "$topo" $args --op "$op" -b "$size" -e "$size" --format csv > "$tmp/p" 2> "$tmp/err"; then
      awk -F, -v name="$name" -v label="$label" -v op="$op" -v size="$size" -v bw="$bw" -v line="$line" 'NR == 2 {
        e = 100 * ($9 - bw) / bw
        printf "%s|%s|%s|%s|%s|%s|%.1f|%s|%+.1f\n", name, line, label, op, size, bw, $9, $10, e }' "$tmp/p" >> "$tmp/out"
    else
      ko "$name line $line ($label, $op): $(head -1 "$tmp/err")"
    fi
  done < "$tmp/rows"
done
if [ "$n" -gt 0 ] && [ "$(wc -l < "$tmp/out")" -eq "$n" ]; then ok; else ko "predicted $(wc -l < "$tmp/out") of $n figures"; fi

echo "published summaries, predicted (file, source line, run, op, size B, measured/model busbw GB/s, algo, error):"
while IFS='|' read -r name line label op size bw model algo e; do
  printf '  %-24s %4s %-30s %-13s %12s %8s %8s %-5s %7s%%\n' "$name" "$line" "$label" "$op" "$size" "$bw" "$model" "$algo" "$e"
done < "$tmp/out"
if [ -n "$csv" ]; then
  { echo "file,line,label,op,size_bytes,measured_busbw_GBps,predicted_busbw_GBps,algo,error_pct"
    tr '|' , < "$tmp/out"; } > "$csv.part" && mv "$csv.part" "$csv"
fi
m=$(awk -F'|' '{ e = $9 < 0 ? -$9 : $9 + 0; print e }' "$tmp/out" | median)
w=$(awk -F'|' '{ e = $9 < 0 ? -$9 : $9 + 0; print e }' "$tmp/out" | sort -g | tail -1)
printf 'summaries: %d figures, median |error| %.1f%%, worst %.1f%%\n' "$n" "$m" "$w"
if awk "BEGIN { exit !($m <= 8) }"; then ok; else ko "median |error| $m% > 8%"; fi
if awk "BEGIN { exit !($w <= 25) }"; then ok; else ko "worst |error| $w% > 25%"; fi
finish reference-summary

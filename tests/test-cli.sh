#!/bin/sh
# Golden-behaviour tests of the dpscale command line, its general part:
# --help, topo and its layouts, topology files, output files.  The
# commands each have their own: test-cli-collective.sh, -predict.sh,
# -layout.sh, -advise.sh (expect: cli-lib.sh).  Usage: test-cli.sh
# DPSCALE_BINARY
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"

expect 0 "Commands:" -- --help
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 2 "Unknown option --bogus" -- collective --bogus
expect 0 "nccl-tests" -- collective --help
# a GPU whose architecture its name does not tell: NCCL's Hopper tables,
# said once on stderr by every command that loads the topology
sed 's/^model = H100 SXM5$/model = Zeta X1/' "$top/topologies/dgx-h100.topo" >"$tmp/zeta.topo"
for c in predict collective; do
  "$bin" $c -t "$tmp/zeta.topo" --gpus 16 >/dev/null 2>"$tmp/err"
  if [ "$(grep -c "GPU 'Zeta X1': its architecture is not known" "$tmp/err")" = 1 ]; then ok
  else ko "$c on an unknown GPU: $(cat "$tmp/err")"; fi
done
# each command's summary is one fact: its --help says what `dpscale --help`
# lists for it (sim/app/cli-util.c's table)
"$bin" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1' >"$tmp/summaries"
[ "$(wc -l <"$tmp/summaries")" -ge 9 ] && ok || ko "commands in --help: $(cat "$tmp/summaries")"
while read -r cmd summary; do
  if "$bin" "$cmd" --help | grep "^  dpscale $cmd \[" | grep -qF -- "] - $summary"; then ok
  else ko "dpscale $cmd --help does not say '$summary'"; fi
done <"$tmp/summaries"
expect 0 "Avg bus bandwidth" -- collective
expect 0 "DGX H100" -- topo
expect 0 "dgx1-v100" -- topo --list
expect 0 "bisection" -- topo dgx1-v100 --nodes 2
expect 0 "the switches reduce (SHARP" -- topo dgx-h100 --nodes 2
# machine-readable: JSON of the description (2 nodes of AWS p5: 16 GPUs,
# Hopper, its price, each node's 32 EFA NICs of 100 Gb/s at 0.9 reachable:
# 360 GB/s into the network), CSV of the link classes
if "$bin" topo aws-p5 --nodes 2 --format json >"$tmp/topo.json" \
   && python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["gpus"]==16 and d["nodes"]==2 and d["gpu"]["arch"]=="hopper" and d["price_per_gpu_hour_usd"]==6.88
assert abs(d["bandwidth_Bps"]["node_into_network"]-360e9)<1e6 and sum(l["count"] for l in d["links"])>0' "$tmp/topo.json"
then ok; else ko "topo --format json: $(head -c 300 "$tmp/topo.json")"; fi
expect 0 "^kind,from,to,bandwidth_GBps,latency_us,count" -- topo dgx-h100 --format csv
expect 2 "--format: json with a topology's description alone" -- topo --links --format json
# where a layout's groups land.  Megatron's order (tp-dp-pp, the default;
# megatron/core/parallel_state.py): on 8 DGX H100 nodes, tp 8 x pp 4 x dp
# 2: the tensor-parallel groups are the nodes (0-7, 8-15, ...), a
# data-parallel group GPUs 8 apart (0, 8), a pipeline GPUs 16 apart (0, 16,
# 32, 48).  In tp-pp-dp the pipeline is 0, 8, 16, 24 and the data-parallel
# group 0, 32.  tp 16 spans two nodes, said; a layout that does not divide
# the GPUs is refused by name.
"$bin" topo dgx-h100 --nodes 8 --tp 8 --pp 4 >"$tmp/layout" 2>&1
if grep -q "^layout         tp 8 x pp 4 x dp 2 = 64 GPUs (ranks in order tp-dp-pp" "$tmp/layout" \
   && grep -q "^  tensor-parallel groups   8 groups of 8 GPUs, each inside one node" "$tmp/layout" \
   && grep -q "^    8-15$" "$tmp/layout" && grep -q "^    0, 16, 32, 48  (across nodes)$" "$tmp/layout" \
   && grep -q "^    0, 8  (across nodes)$" "$tmp/layout"; then ok; else ko "topo --tp 8 --pp 4: $(tail -20 "$tmp/layout")"; fi
"$bin" topo dgx-h100 --nodes 8 --tp 8 --pp 4 --rank-order tp-pp-dp >"$tmp/layout" 2>&1
if grep -q "^    0, 8, 16, 24  (across nodes)$" "$tmp/layout" && grep -q "^    0, 32  (across nodes)$" "$tmp/layout"; then ok
else ko "topo --rank-order tp-pp-dp: $(tail -20 "$tmp/layout")"; fi
# the GPU's architecture, which picks NCCL's tuning tables: told from the
# model's name, or said to be unknown (Hopper's tables then) where it is not
expect 0 "architecture   hopper (from the model's name)" -- topo dgx-h100
sed 's/^model = H100 SXM5$/model = Mystery GPU/' "$(dirname "$0")/../topologies/dgx-h100.topo" >"$tmp/mystery.topo"
expect 0 "architecture   not known from the model's name: NCCL's Hopper tables are used" -- topo "$tmp/mystery.topo"
# a malformed topology: the message names the file and the line
cat >"$tmp/bad.topo" <<'T'
[system]
name = bad
gpus_per_node = 2
[gpu]
model = g
fp32_tflops = fast
memory_GB = 1
memory_bw_GBps = 1
T
expect 1 "bad.topo:6: \[gpu\] fp32_tflops: expected a number, got 'fast'" -- topo "$tmp/bad.topo"
expect 1 "is a directory" -- topo --topology "$tmp"
printf '\001\002\000\003' >"$tmp/binary.topo"
expect 1 "binary data" -- topo "$tmp/binary.topo"
: >"$tmp/empty.topo"
expect 1 "missing section \[system\]" -- topo "$tmp/empty.topo"

# CSV: a header with units and one row per size (8 B .. 1 KiB by 2: 8 rows)
expect 0 "size_bytes" -- collective --format csv -b 8 -e 1K -f 2
rows=$(grep -c '^allreduce,' "$tmp/out")
if [ "$rows" -eq 8 ]; then ok; else ko "csv rows $rows, want 8"; fi
expect 0 '"busbw_GBps"' -- collective --format json -b 1M -e 1M

# -o writes the whole file; an unwritable path fails and leaves nothing
expect 0 "" -- collective -o "$tmp/r.csv" --format csv -b 1K -e 4K
if [ "$(wc -l <"$tmp/r.csv")" -eq 4 ]; then ok; else ko "-o file"; fi
expect 2 "\-o $tmp/none/r.csv: its directory does not exist" -- collective -o "$tmp/none/r.csv"
if [ ! -e "$tmp/none/r.csv" ]; then ok; else ko "-o into a missing folder left a file"; fi
# topo lays out the GPUs asked for (4 of a node), as predict does
expect 0 "tp 2 x pp 1 x dp 2" -- topo dgx-h100 --gpus 4 --tp 2
expect 0 "1 node x 8 GPUs = 8 GPUs, 4 of them in use" -- topo dgx-h100 --gpus 4
expect 2 "no CSV file given" -- plot

finish cli

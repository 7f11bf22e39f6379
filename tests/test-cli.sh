#!/bin/sh
# Golden-behaviour tests of the dpscale command line: exit codes, one-line
# errors that name the file, line or flag, and outputs that are complete or
# absent.  Usage: test-cli.sh DPSCALE_BINARY
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"

# expect STATUS PATTERN -- ARGS...: the command exits with STATUS and its
# stderr (or stdout when STATUS is 0) matches the grep pattern.
expect () {
  want=$1 pattern=$2
  shift 3
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" -ne 0 ]; then text="$tmp/err"; else text="$tmp/out"; fi
  if [ "$got" -eq "$want" ] && { [ -z "$pattern" ] || grep -q -- "$pattern" "$text"; }; then
    ok
  else
    ko "dpscale $* -> exit $got (want $want), output:"
    head -5 "$text" >&2
  fi
  # errors are one line
  if [ "$got" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    ko "dpscale $*: error is not one line"
  fi
}

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
# The order moves the costs: Llama 2 70B on 64 H100s, tp 4 x pp 4 x dp 4.
# In tp-dp-pp a data-parallel group (0, 4, 8, 12) is two GPUs on each of
# two nodes, in tp-pp-dp (0, 16, 32, 48) one on each of four: its
# all-reduce is slower in the second, the rest of the step the same order
# of work; the JSON names the order.
for o in tp-dp-pp tp-pp-dp; do
  "$bin" predict --model llama2-70b --gpus 64 --tp 4 --pp 4 --batch 1 --rank-order $o --format json >"$tmp/$o.json" 2>/dev/null
done
if python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
dp = lambda d: next(c["time_s"] for c in d["collectives"] if c["name"] == "all-reduce (data parallel)")
assert a["layout"]["rank_order"] == "tp-dp-pp" and b["layout"]["rank_order"] == "tp-pp-dp"
assert dp(a) < dp(b), (dp(a), dp(b))' "$tmp/tp-dp-pp.json" "$tmp/tp-pp-dp.json"; then ok
else ko "--rank-order: the data-parallel all-reduce does not follow the order"; fi
expect 2 "--rank-order: 'dp-tp-pp' is not tp-dp-pp or tp-pp-dp" -- predict --tp 2 --rank-order dp-tp-pp
expect 2 "--rank-order: only with --tp or --pp above 1" -- predict --rank-order tp-pp-dp
# Megatron-Core's overlaps: each needs what Megatron needs for it
expect 2 "--tp-comm-overlap: needs --sequence-parallel" -- predict --tp 2 --tp-comm-overlap
expect 2 "--overlap-param-gather: only with --strategy zero1 and --tp or --pp" -- predict --tp 2 --overlap-param-gather
expect 2 "--overlap-param-gather: only with --strategy zero1 and --tp or --pp" -- sweep --strategy zero1 --overlap-param-gather
# FSDP's no_sync: only where gradients are sharded and nothing else splits
# the model; under it one reduce-scatter a unit a step (not one a
# micro-step), each unit's unsharded gradients held in the reduction's
# type (fp32: 4 bytes a parameter of GPT-2 XL's 1.56 B, 6.2 GB more
# gathered at the peak), the gradient shards only after it
expect 2 "--accum-no-sync: only with --strategy zero2, fsdp or hsdp" -- predict --accum-no-sync --grad-accum 2
expect 2 "--accum-no-sync: only with --strategy zero2, fsdp or hsdp" -- sweep --strategy zero1 --accum-no-sync
# accepted without accumulation, where it changes nothing, and said so
if "$bin" predict --strategy fsdp --accum-no-sync >"$tmp/ns1" 2>"$tmp/ns1err" \
   && grep -q -- "--accum-no-sync changes nothing without --grad-accum 2 or more" "$tmp/ns1err"; then ok
else ko "--accum-no-sync without --grad-accum: $(cat "$tmp/ns1err")"; fi
ns="predict --model gpt2-xl --gpus 16 --strategy fsdp --batch 2 --grad-accum 4 --format json"
# shellcheck disable=SC2086
"$bin" $ns >"$tmp/ns0.json" 2>/dev/null
# shellcheck disable=SC2086
"$bin" $ns --accum-no-sync >"$tmp/ns1.json" 2>/dev/null
if python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
rs = lambda d: next(c for c in d["collectives"] if c["name"].startswith("reduce-scatter"))
assert rs(a)["count"] == 4 * rs(b)["count"], (rs(a)["count"], rs(b)["count"])
ma, mb = a["memory_bytes"], b["memory_bytes"]
assert mb["gradients"] == 0 and ma["gradients"] > 0, (ma, mb)
assert b["fsdp"]["accum_no_sync"] and not a["fsdp"]["accum_no_sync"], (a["fsdp"], b["fsdp"])
assert b["fsdp"] == dict(a["fsdp"], accum_no_sync=True) and a["fsdp"]["unit"] == "block", a["fsdp"]
extra = mb["gathered"] - ma["gathered"]
assert abs(extra / (4 * a["parameters"]) - 1) < 0.01, (extra, a["parameters"])
assert abs(mb["total"] - ma["total"] - (extra - ma["gradients"])) < 1e3, (ma, mb)' "$tmp/ns0.json" "$tmp/ns1.json"
then ok; else ko "--accum-no-sync: $(head -c 800 "$tmp/ns1.json")"; fi
# ZeRO-1 under tensor parallelism is Megatron's distributed optimizer:
# gradients reduce-scattered, parameters all-gathered; overlapping the
# gathers and the tensor-parallel collectives only shortens the step
z1="predict --model mcore-gpt-7.1b --gpus 16 --tp 2 --sequence-parallel --seq-len 4096 --batch 1 --grad-accum 4 --strategy zero1 --precision bf16 --flash-attention"
# shellcheck disable=SC2086
"$bin" $z1 >"$tmp/z1" 2>&1
# shellcheck disable=SC2086
"$bin" $z1 --overlap-param-gather --tp-comm-overlap >"$tmp/z1o" 2>&1
t0=$(awk '/step time/ { print $3 }' "$tmp/z1"); t1=$(awk '/step time/ { print $3 }' "$tmp/z1o")
if grep -q "reduce-scatter (data parallel)" "$tmp/z1" && grep -q "all-gather (data parallel)" "$tmp/z1" \
   && ! grep -q "all-reduce (data parallel)" "$tmp/z1" && awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b < a) }'; then ok
else ko "zero1 under --tp: $t0 -> $t1 ms; $(cat "$tmp/z1")"; fi
# the JSON's layout says what ran: schedule, sequence parallelism, overlaps
# shellcheck disable=SC2086
"$bin" $z1 --overlap-param-gather --tp-comm-overlap --format json >"$tmp/z1o.json" 2>/dev/null
# shellcheck disable=SC2086
"$bin" $z1 --format json >"$tmp/z1.json" 2>/dev/null
if python3 -c 'import json, sys
o, p = (json.load(open(f))["layout"] for f in sys.argv[1:])
assert o["schedule"] == "gpipe" and o["sequence_parallel"] and o["tp_comm_overlap"] and o["overlap_param_gather"], o
assert p["sequence_parallel"] and not p["tp_comm_overlap"] and not p["overlap_param_gather"], p' "$tmp/z1o.json" "$tmp/z1.json"
then ok; else ko "predict --format json: the layout's settings: $(cat "$tmp/z1o.json" | head -c 600)"; fi
# CPU offload: Llama-2-70B's FULL_SHARD states on 8 H100s are 16 bytes a
# parameter over 8 (139 GB, do not fit); offloaded, the parameter shards
# too, only activations and gathered units stay (fits), the optimizer
# runs on the host's CPUs (slower), and the report and JSON say where
for o in none params; do
  "$bin" predict --model llama2-70b --gpus 8 --strategy fsdp --flash-attention --checkpoint --batch 1 --offload $o \
    --format json >"$tmp/off-$o.json" 2>/dev/null
done
if python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert not a["fits"] and b["fits"], (a["fits"], b["fits"])
assert a["offload"] == "none" and b["offload"] == "params"
assert a["memory_bytes"]["host"] == 0 and b["memory_bytes"]["parameters"] == 0
assert abs(b["memory_bytes"]["host"] - (a["memory_bytes"]["parameters"] + a["memory_bytes"]["gradients"]
           + a["memory_bytes"]["optimizer"])) < 1
assert b["optimizer_s"] > 10 * a["optimizer_s"] and b["step_s"] > a["step_s"]' "$tmp/off-none.json" "$tmp/off-params.json"
then ok; else ko "--offload params: memory moved to the host, optimizer on the CPUs"; fi
expect 0 "in host memory (offloaded shards)" -- predict --model llama3-8b --gpus 16 --strategy fsdp --offload optimizer
# Llama 3 405B's 16 bytes a parameter on one DGX H100: 6.5 TB offloaded, the host has 2 TB
expect 0 "does not fit in host memory: 6493.7 GB offloaded by a host's 8 GPUs, it has 2000.0 GB" -- predict \
  --model llama3-405b --gpus 8 --strategy fsdp --flash-attention --checkpoint --batch 1 --offload params
expect 2 "--offload: 'cpu' is not none, optimizer or params" -- predict --strategy fsdp --offload cpu
expect 2 "--offload: with zero2, fsdp or hsdp" -- predict --strategy zero1 --offload optimizer
expect 2 "--offload: the parameters are offloaded as shards" -- predict --strategy zero2 --offload params
expect 2 "--offload: topology 'HGX B200' states no host memory bandwidth" -- predict --topology hgx-b200 --strategy fsdp --offload params
expect 2 "--offload: topology 'HGX B200' states no host memory bandwidth" -- advise --topology hgx-b200 --offload params
# advise tunes FSDP's own settings on its best FSDP and HSDP plans, one at
# a time (the CSV's plan column names them): on 32 GPUs HSDP's shard group
# over 2 nodes, each layer a unit, backward prefetch after the unit's backward
# or none, which expose more of the gathers than BACKWARD_PRE (PyTorch's
# FSDP docs): slower, and none slowest (each name's first row: its fastest)
"$bin" advise --model llama3-8b --gpus 32 --batch 2 --format csv >"$tmp/tune.csv" 2>/dev/null
if awk -F, 'NR > 1 && !($NF in t) { t[$NF] = $15 }
     END { exit !(("hsdp +flash g16" in t) && ("fsdp +flash unit=layer" in t) &&
                  t["fsdp +flash"] < t["fsdp +flash prefetch=post"] && t["fsdp +flash prefetch=post"] < t["fsdp +flash prefetch=none"]) }' "$tmp/tune.csv"
then ok; else ko "advise: FSDP's settings tuned: $(cut -d, -f15,22 "$tmp/tune.csv" | head -12 | tr '\n' ' ')"; fi
# tensor-parallel plans run as Megatron-Core runs them (sequence
# parallelism, its collectives beside the GEMMs: every tp > 1 plan is named
# +sp+overlap; the same plan without them is slower, above); ZeRO-1's best
# pipeline plan again with its gathers overlapped, faster than without at
# the same micro-batches
if awk -F, 'NR > 1 { k = $11 "x" $12; t[$NF "|" k] = $15
                     if ($NF ~ / tp[2-8] / && $NF !~ / \+sp\+overlap/) bad = 1
                     if ($NF ~ / \+overlap$/ && $NF !~ /sp\+overlap/) o[$NF "|" k] = 1 }
     END { n = 0
           for (x in o) { split (x, p, "|"); b = p[1]; sub (/ \+overlap$/, "", b)
                          if (!((b "|" p[2]) in t) || t[x] >= t[b "|" p[2]]) exit 1; n++ }
           exit !(n >= 1 && !bad) }' "$tmp/tune.csv"
then ok; else ko "advise: Megatron's overlaps: $(grep overlap "$tmp/tune.csv" | cut -d, -f11,12,15,22 | tr '\n' ' ')"; fi
# and no_sync where its best FSDP and HSDP plans accumulate: the runner's
# MLP on two PCIe nodes of 2 x 100 Gb/s, 8 x 2 micro-steps: one
# reduce-scatter a step instead of two is faster (its unsharded gradients
# fit), each +no-sync plan faster than the same plan without
"$bin" advise --model mlp --topology pcie-8gpu-2x100g --gpus 16 --batch 16 --format csv >"$tmp/ns.csv" 2>/dev/null
if awk -F, '$2 == "plan" { k = $11 "x" $12; t[$NF "|" k] = $15; if ($NF ~ / \+no-sync$/) o[$NF "|" k] = 1 }
     END { n = 0
           for (x in o) { split (x, p, "|"); b = p[1]; sub (/ \+no-sync$/, "", b)
                          if (!((b "|" p[2]) in t) || t[x] >= t[b "|" p[2]]) exit 1; n++ }
           exit !(n >= 2) }' "$tmp/ns.csv"
then ok; else ko "advise: no_sync: $(grep -- 'no-sync' "$tmp/ns.csv" | cut -d, -f11,12,15,22 | tr '\n' ' ')"; fi
# with FSDP's settings given, every plan is named by what it runs: no two
# plans of the same name and micro-batch x accumulation (a plan run with
# --fsdp-unit layer named as the default, beside the default itself, was),
# and the fastest FSDP plan says the unit it ran
"$bin" advise --model llama3-8b --gpus 16 --batch 2 --fsdp-unit layer --format csv >"$tmp/tune2.csv" 2>/dev/null
if [ -s "$tmp/tune2.csv" ] && [ -z "$(awk -F, '$2 == "plan" { print $NF "|" $11 "x" $12 }' "$tmp/tune2.csv" | sort | uniq -d)" ] \
   && awk -F, '$2 == "plan" && $3 == "fsdp" { exit !($NF ~ /unit=layer/) }' "$tmp/tune2.csv"; then ok
else ko "advise --fsdp-unit layer: plans named alike: $(awk -F, '$2 == "plan" { print $NF "|" $11 "x" $12 }' "$tmp/tune2.csv" | sort | uniq -d | head -3)"; fi
# advise offloads only the plans that would not fit otherwise: Llama-3-8B
# on 16 GPUs fits sharded (its best plan stays on the GPUs); Llama-2-70B on
# 8 fits only with its shards on the host (the CSV says which)
"$bin" advise --model llama3-8b --gpus 16 --batch 1 --offload optimizer --format csv >"$tmp/adv8.csv" 2>/dev/null
"$bin" advise --model llama2-70b --gpus 8 --batch 1 --offload params --format csv >"$tmp/adv70.csv" 2>/dev/null
if [ "$(awk -F, '$1 == "p1" { print $9 }' "$tmp/adv8.csv")" = "none" ] \
   && [ "$(awk -F, '$1 == "p1" { print $3, $9 }' "$tmp/adv70.csv")" = "fsdp params" ]; then ok
else ko "advise --offload: p1 $(grep '^p1,' "$tmp/adv8.csv") / $(grep '^p1,' "$tmp/adv70.csv")"; fi
expect 0 "note: tensor parallel 16 spans nodes of 8 GPUs" -- topo dgx-h100 --nodes 2 --tp 16
expect 2 "--tp/--pp: tp 3 x pp 1 does not divide the 8 GPUs" -- topo dgx-h100 --tp 3
# a per-layer file measured at batch 8 runs at 8 unless --batch says
# otherwise (its times are not halved to the default 4), and says so; with
# --batch 2 they are scaled, said too
printf '# batch: 8\nlayer,params,forward_ms,backward_ms\nl0,1000000,1.0,2.0\nl1,1000000,1.0,2.0\n' >"$tmp/b8.csv"
"$bin" predict --model "$tmp/b8.csv" --gpus 8 >"$tmp/b8" 2>"$tmp/b8err"
if grep -q "^  batch          8 per replica" "$tmp/b8" && grep -q "b8.csv: batch 8, as its times were measured" "$tmp/b8err"
then ok; else ko "a file's batch: $(grep batch "$tmp/b8") $(cat "$tmp/b8err")"; fi
"$bin" predict --model "$tmp/b8.csv" --gpus 8 --batch 2 >"$tmp/b2" 2>"$tmp/b2err"
if grep -q "^  batch          2 per replica" "$tmp/b2" \
   && grep -q "b8.csv: its times were measured at batch 8: scaled to --batch 2" "$tmp/b2err"; then ok
else ko "--batch 2 on a batch-8 file: $(cat "$tmp/b2err")"; fi
# the GPU's architecture, which picks NCCL's tuning tables: told from the
# model's name, or said to be unknown (Hopper's tables then) where it is not
expect 0 "architecture   hopper (from the model's name)" -- topo dgx-h100
sed 's/^model = H100 SXM5$/model = Mystery GPU/' "$(dirname "$0")/../topologies/dgx-h100.topo" >"$tmp/mystery.topo"
expect 0 "architecture   not known from the model's name: NCCL's Hopper tables are used" -- topo "$tmp/mystery.topo"
expect 2 "\-\-topology: no file 'no-such-thing' and no shipped topology" -- topo no-such-thing
expect 2 "\-\-gpus: 12 GPUs span nodes of 8" -- collective --gpus 12
expect 2 "\-\-nodes 2 and \-\-gpus 8 disagree" -- collective --nodes 2 --gpus 8
expect 2 "\-\-gpus: 2147483647 is out of range (2 to 32768)" -- collective --gpus 2147483647
expect 2 "\-\-gpus: 40000 is out of range (2 to 32768)" -- collective --gpus 40000
expect 2 "\-\-minbytes: 'lots'" -- collective -b lots
expect 2 "\-\-stepfactor: 1 is out of range (more than 1" -- collective -f 1
expect 2 "\-\-algo: unknown algorithm 'magic'" -- collective --algo magic
expect 2 "\-\-format: 'xml'" -- collective --format xml
expect 1 "algorithm nvls needs NVSwitch" -- collective --topology dgx-a100 --algo nvls

# NCCL_ALGO / NCCL_PROTO from the environment, in NCCL's syntax (names in any
# case, commas, '^' excluding), the flags winning.  One DGX H100 (8 GPUs)
# all-reduces every 64 MiB bucket with NVLS by default (NCCL's choice at
# 64 MiB, as collective shows; 16-32 MiB take ring LL128); ^NVLS leaves ring
# and tree.
expect 0 "collectives    nvls x 73" -- predict --gpus 8 --bucket-cap-mb 64 --first-bucket-mb 64
export NCCL_ALGO='^NVLS'
expect 0 "collectives    \(tree\|ring\)" -- predict --gpus 8 --bucket-cap-mb 64 --first-bucket-mb 64
if grep -q nvls "$tmp/out"; then ko "NCCL_ALGO=^NVLS still picks NVLS"; else ok; fi
if grep -q "NCCL_ALGO=^NVLS from the environment" "$tmp/err"; then ok; else ko "no note on NCCL_ALGO"; fi
export NCCL_ALGO='Tree,Ring' NCCL_PROTO=simple
expect 0 "(Simple x 145)" -- predict --gpus 8
# collective, lower case: no size runs NVLS (by default 1 GiB does)
export NCCL_ALGO='^nvls'
unset NCCL_PROTO
expect 0 "" -- collective --format csv -b 1K -e 1G -f 8
if [ "$(grep -c ',nvls,' "$tmp/out")" -eq 0 ] && [ "$(grep -c '^allreduce,' "$tmp/out")" -eq 7 ]; then ok
else ko "collective with NCCL_ALGO=^nvls"; fi
# the flag wins: NCCL_ALGO=tree, --algo ring: every size a ring
export NCCL_ALGO=tree
expect 0 "" -- collective --format csv -b 1K -e 1G -f 8 --algo ring
if [ "$(grep -c ',ring,' "$tmp/out")" -eq 7 ]; then ok; else ko "--algo did not win over NCCL_ALGO"; fi
# CollNet (SHARP) only where NCCL would run it: with NCCL_COLLNET_ENABLE=1
# (or named) on a fabric whose switches reduce (dgx-h100: sharp = true),
# across nodes.  4 DGX H100: 1 GiB and 4 GiB take it (the NICs carry S/8
# each way, a ring 2(n-1)/n S / 8: 1.94 times as much), not without it.
unset NCCL_ALGO
expect 0 "" -- collective --nodes 4 --format csv -b 1G -e 4G -f 4
if [ "$(grep -c ',collnet,' "$tmp/out")" -eq 0 ]; then ok; else ko "collnet chosen without NCCL_COLLNET_ENABLE"; fi
export NCCL_COLLNET_ENABLE=1
expect 0 "" -- collective --nodes 4 --format csv -b 1G -e 4G -f 4
if [ "$(grep -c ',collnet,Simple$' "$tmp/out")" -eq 2 ]; then ok; else ko "NCCL_COLLNET_ENABLE=1 did not pick collnet at 1-4 GiB"; fi
expect 0 "collectives .*collnet x" -- predict --nodes 4
unset NCCL_COLLNET_ENABLE
expect 1 "algorithm collnet needs switches that reduce" -- collective --topology dgx-a100 --nodes 2 --algo collnet
expect 1 "algorithm collnet needs at least 2 nodes" -- collective --nodes 1 --algo CollNetDirect
# PAT: NCCL's all-gather for one GPU a node (--per-node 1): 16 single-GPU
# DGX H100 nodes take it at 64 KiB (4 rounds of latency for a ring's 15
# steps), a ring at 4 GiB (PAT has 0.75 of its bandwidth); never with all
# 8 GPUs of each node, nor with NCCL_PAT_ENABLE=0
expect 0 "" -- collective --nodes 16 --per-node 1 --op allgather --format csv -b 64K -e 4G -f 65536
if [ "$(sed -n 2p "$tmp/out" | cut -d, -f1-3)" = "allgather,16,16" ] && grep -q '^allgather,16,16,65536,.*,pat,Simple$' "$tmp/out" \
   && grep -q '^allgather,16,16,4294967296,.*,ring,Simple$' "$tmp/out"; then ok; else ko "--per-node 1: not PAT at 64 KiB and a ring at 4 GiB on 16 GPUs of 16 nodes"; fi
expect 0 "" -- collective --nodes 2 --op allgather --format csv -b 64K -e 64K
if ! grep -q ',pat,' "$tmp/out"; then ok; else ko "PAT with 8 GPUs a node"; fi
export NCCL_PAT_ENABLE=0
expect 0 "" -- collective --nodes 16 --per-node 1 --op allgather --format csv -b 64K -e 64K
if ! grep -q ',pat,' "$tmp/out"; then ok; else ko "PAT despite NCCL_PAT_ENABLE=0"; fi
unset NCCL_PAT_ENABLE
expect 1 "algorithm pat runs only with one GPU a node" -- collective --nodes 2 --op allgather --algo PAT
expect 1 "algorithm pat runs only allgather and reducescatter" -- collective --nodes 4 --per-node 1 --algo pat
expect 2 "per-node: 9 GPUs asked for in a node of 8" -- collective --nodes 2 --per-node 9
expect 2 "per-node: goes with --nodes, not --gpus" -- collective --gpus 16 --per-node 1
# a log of one rank a host compares on that many nodes of the topology, one
# GPU of each (a ring at 1 MiB on 4 nodes: PAT's 4 x 2.8 us and 0.75 of the
# bandwidth do not pay for its 2 rounds against the ring's 3 steps)
cat >"$tmp/one.log" <<'LOG'
#  Rank  0 Group  0 Pid 1 on h1 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid 1 on h2 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  2 Group  0 Pid 1 on h3 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  3 Group  0 Pid 1 on h4 device  0 [0x18] NVIDIA H100 80GB HBM3
NCCL version 2.26.5+cuda12.9
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
     1048576         65536     float    none      -1    80.00   13.11    9.83      0    80.00   13.11    9.83      0
LOG
expect 0 "on 4 ranks (4 hosts) -> 4 nodes of topology dgx-h100" -- collective --topology dgx-h100 --compare "$tmp/one.log"
if grep -q '^ *1048576 .* ring ' "$tmp/out"; then ok; else ko "a 4-host log of one GPU each: not compared row by row"; fi
# and so does one of more ranks than a node holds, 10 hosts of one GPU (it
# was refused: "10 GPUs span nodes of 8"); 10 ranks spread unevenly over 4
# hosts fill neither whole nodes nor the same GPUs of each, and are refused
{ for i in 0 1 2 3 4 5 6 7 8 9; do
    printf '#  Rank %2d Group  0 Pid 1 on h%d device  0 [0x18] NVIDIA H100 80GB HBM3\n' "$i" "$i"
  done
  sed -n '/^NCCL version/,$p' "$tmp/one.log"; } >"$tmp/ten.log"
expect 0 "on 10 ranks (10 hosts) -> 10 nodes of topology dgx-h100" -- collective --topology dgx-h100 --compare "$tmp/ten.log"
{ for i in 0 1 2 3 4 5 6 7 8 9; do
    printf '#  Rank %2d Group  0 Pid 1 on h%d device  %d [0x18] NVIDIA H100 80GB HBM3\n' "$i" $((i % 4)) $((i / 4))
  done
  sed -n '/^NCCL version/,$p' "$tmp/one.log"; } >"$tmp/uneven.log"
expect 1 "uneven.log: --gpus: 10 GPUs span nodes of 8 GPUs" -- collective --topology dgx-h100 --compare "$tmp/uneven.log"
# sweep: NCCL_ALGO=ring gives what --algo ring gives, not the default
export NCCL_ALGO=ring
"$bin" sweep --gpus 8,16 --format csv >"$tmp/env.csv" 2>/dev/null
unset NCCL_ALGO
"$bin" sweep --gpus 8,16 --format csv --algo ring >"$tmp/flag.csv"
"$bin" sweep --gpus 8,16 --format csv >"$tmp/default.csv"
if cmp -s "$tmp/env.csv" "$tmp/flag.csv" && ! cmp -s "$tmp/env.csv" "$tmp/default.csv"; then ok
else ko "sweep with NCCL_ALGO=ring differs from --algo ring or equals the default"; fi
export NCCL_ALGO=magic
expect 1 "NCCL_ALGO: unknown algorithm 'magic'" -- predict
unset NCCL_ALGO
export NCCL_PROTO='^LL,LL128,Simple'
expect 1 "NCCL_PROTO=^LL,LL128,Simple leaves nothing" -- collective
unset NCCL_PROTO
# the flags take NCCL's syntax too
expect 0 "collectives    \(tree\|ring\)" -- predict --gpus 8 --algo '^NVLS'

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

# predict and sweep
expect 0 "step time" -- predict
expect 0 "scaling eff" -- predict --model resnet50 --topology dgx-a100 --gpus 16 --batch 64
expect 2 "\-\-gpus: 12 GPUs span nodes of 8" -- predict --gpus 12
expect 2 "\-\-gpus: '0'" -- predict --gpus 0
expect 2 "\-\-bucket-cap-mb: 0 is out of range (more than 0" -- predict --bucket-cap-mb 0
expect 2 "\-\-compress: 'zip'" -- predict --compress zip
expect 2 "\-\-global-batch: 8 samples cannot be split over 64" -- predict --global-batch 8
# a global batch that does not split evenly is refused, with the two that would (not rounded up)
expect 2 "\-\-global-batch: 100 samples do not split evenly over 64 replicas x 1 micro-step (64 or 128 would)" -- predict --global-batch 100
expect 2 "\-\-model: no file 'gpt5'" -- predict --model gpt5
printf 'layer,params,forward_ms,backward_ms\nfc,10,x,1\n' >"$tmp/bad.csv"
expect 1 "bad.csv:2: forward_ms: 'x'" -- predict --model "$tmp/bad.csv"
printf '# batch: 4\nlayer,params,forward_ms,backward_ms\nfc1,1000000,2,4\nfc2,1000000,2,4\n' >"$tmp/mine.csv"
expect 0 "2 layers" -- predict --model "$tmp/mine.csv" --gpus 8
# a Hugging Face config.json, told by its content: the published 8,030,261,248
# parameters of Meta-Llama-3-8B; an unknown model_type names the key and file
expect 0 "8.030 B parameters in 291 tensors" -- predict --model "$(dirname "$0")/data/hf/Meta-Llama-3-8B.json" --gpus 8
printf '{"model_type": "mixtral"}\n' >"$tmp/config.json"
expect 1 "config.json: model_type: 'mixtral' is not one dpscale builds" -- predict --model "$tmp/config.json"
# a torch.profiler trace, told by its "traceEvents": tests/data/trace's GPU
# trace (2 layers' 262,144 + 2,560 parameters in 3 tensors, taken on an
# A100 40GB) transferred to DGX A100's 80 GB part, the times it used said
# on stderr; its CPU trace refused on GPUs; a truncated trace refused with
# the file, line and column
trace="$(dirname "$0")/data/trace"
expect 0 "transferred from A100 (NVIDIA A100-SXM4-40GB in .*mlp-cuda.json)" -- predict --model "$trace/mlp-cuda.json" \
  --topology dgx-a100 --gpus 8
"$bin" predict --model "$trace/mlp-cuda.json" --topology dgx-a100 --gpus 8 >/dev/null 2>"$tmp/err"
if grep -q "^dpscale predict: note: .*mlp-cuda.json: torch.profiler trace of MLP_0, .*GPU kernel time" "$tmp/err"; then ok
else ko "predict --model mlp-cuda.json: no note on stderr"; fi
expect 1 "mlp-cpu.json: times measured on cpu, not valid for the H100" -- predict --model "$trace/mlp-cpu.json" --gpus 8
head -c 5000 "$trace/mlp-cpu.json" >"$tmp/cut.json"
expect 1 "cut.json:[0-9]*:[0-9]*: Parse error" -- predict --model "$tmp/cut.json"
expect 0 "90% interval" -- predict --jitter 0.05 --trials 5 --gpus 16
expect 0 "step_s,step_p5_s" -- predict --format csv --gpus 16
# CSV numbers as a spreadsheet reads them back: GPT-2 XL's 69,908,567,808
# bytes per replica on 16 H100s (JSON's memory_bytes.total; 20 bytes per
# parameter for torch.autocast's fp32 weights, gradients and buckets and
# Adam's 8, plus 36,286,111,744 of activations and the fp32 loss over 4 x
# 1,024 x 50,257 logits, 4 bytes kept and 8 held: 2,470,232,064) in full,
# not 6.99086e+10;
# no field in
# exponent notation; cost empty without a price, steps and time to target
# empty without a target
col () { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$2"; }
"$bin" predict --format json --gpus 16 >"$tmp/p.json"
total=$(sed -n 's/.*"total" : \([0-9]*\).*/\1/p' "$tmp/p.json")
if [ "$(col memory_bytes "$tmp/out")" = "69908567808" ] && [ "$total" = "69908567808" ]; then ok
else ko "memory_bytes $(col memory_bytes "$tmp/out"), JSON $total, want 69908567808"; fi
if grep -v '^model,' "$tmp/out" | grep -q '[0-9][eE][-+]'; then ko "exponent notation in CSV: $(cat "$tmp/out")"; else ok; fi
"$bin" predict --format csv --gpus 16 --topology gcp-a3-high >"$tmp/unpriced"   # a topology with no price
if [ -z "$(col cost_per_step_usd "$tmp/unpriced")$(col steps_to_target "$tmp/out")$(col time_to_target_s "$tmp/out")" ]
then ok; else ko "values not computed are not empty"; fi
# the shipped dgx-h100 prices its GPU-hour (Lambda's 8x H100 SXM5, 3.99 USD):
# a step costs 16 x 3.99 x step_s / 3600
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
  { want = 16 * 3.99 * $h["step_s"] / 3600; d = $h["cost_per_step_usd"] - want
    if ($h["price_per_gpu_hour_usd"] != 3.99 || d > 1e-9 || d < -1e-9) bad = 1 }
  END { exit bad }' "$tmp/out"; then ok; else ko "dgx-h100's own price: $(cat "$tmp/out")"; fi
# with a price the cost is there: 16 GPUs x $3.6/h x step_s / 3600 = 0.016 x step_s
expect 0 "" -- predict --format csv --gpus 16 --price-per-gpu-hour 3.6
if awk -F, 'NR == 2 { d = $25 - 0.016 * $10; exit !(d < 1e-9 && d > -1e-9 && $25 != "") }' "$tmp/out"; then ok
else ko "cost_per_step_usd with a price"; fi
# --gpu-spread: 0 is identical GPUs (no straggler time without other noise);
# the default 1.5% makes 1024 H100s wait for the slowest, 3.25 sd above the
# mean (a straggler column above 0); out of range refused by name
"$bin" predict --format csv --gpus 1024 --gpu-spread 0 >"$tmp/s0.csv"
"$bin" predict --format csv --gpus 1024 >"$tmp/s1.csv"
s0=$(col straggler_s "$tmp/s0.csv"); s1=$(col straggler_s "$tmp/s1.csv")
if awk -v a="$s0" -v b="$s1" 'BEGIN { exit !(a == 0 && b > 0) }'; then ok
else ko "straggler_s with --gpu-spread 0: $s0, default: $s1 (want 0 and more than 0)"; fi
expect 2 "--gpu-spread: 2 is out of range" -- predict --gpu-spread 2
# ResNet-50 has no tokens: tokens_per_s empty, not 0
expect 0 "" -- predict --format csv --gpus 16 --model resnet50
if [ -z "$(col tokens_per_s "$tmp/out")" ] && [ -n "$(col samples_per_s "$tmp/out")" ]; then ok; else ko "tokens_per_s for resnet50"; fi
expect 0 '"efficiency"' -- predict --format json --gpus 16
expect 0 "does not fit" -- predict --batch 64 --gpus 8
expect 0 "" -- predict --gpus 16 --trace "$tmp/t.json"
# --plot draws one step (its streams' tasks and the memory) as PNG or SVG;
# another extension is refused before any work, naming the flag
expect 0 "" -- predict --gpus 16 --plot "$tmp/step.png"
if head -c 4 "$tmp/step.png" | grep -q PNG; then ok; else ko "predict --plot png"; fi
expect 0 "" -- predict --gpus 16 --checkpoint --plot "$tmp/step.svg"
if grep -q "</svg>" "$tmp/step.svg"; then ok; else ko "predict --plot svg"; fi
expect 2 "\-\-plot .*step.pdf: .pdf is not what --plot writes: a picture (.png or .svg)" -- predict --plot "$tmp/step.pdf"
expect 2 "\-\-plot: only for dpscale predict" -- sweep --plot "$tmp/s.png"
# the schedule: a lane per stream (the compute and the all-reduces), the
# tasks by name, a memory counter
if grep -q '"traceEvents"' "$tmp/t.json" && grep -q '"all-reduce bucket 0"' "$tmp/t.json" \
   && grep -q '"all-reduce (data parallel)"' "$tmp/t.json" && grep -q '"bwd h.47"' "$tmp/t.json" \
   && grep -q '"name":"memory","ph":"C"' "$tmp/t.json"; then ok; else ko "trace"; fi
expect 0 "wrote" -- sweep --gpus 1,8,64 -o "$tmp/sw"
for f in sw.csv sw.png sw.svg; do
  if [ -s "$tmp/$f" ]; then ok; else ko "sweep wrote no $f"; fi
done
# the pictures are what their names say
if head -c 8 "$tmp/sw.png" | grep -q PNG && grep -q "<svg" "$tmp/sw.svg"; then ok; else ko "sweep picture formats"; fi
if [ "$(grep -c '^GPT-2 XL,' "$tmp/sw.csv")" -eq 3 ]; then ok; else ko "sweep rows"; fi
expect 0 "dgx1\|DGX-1" -- sweep --gpus 8,16 --topology dgx-h100,dgx1-v100 --bucket-cap-mb 5,25 --format csv
# two topologies: one series each in the plot's data (PREFIX.dat, gnuplot
# blocks two blank lines apart), not one line zig-zagging from the 64-GPU
# DGX H100 point back to 1 GPU of DGX-1: 2 blocks of 3 rows, each block one
# topology with GPUs rising 1, 8, 64 (given as 64,1,8); the legend names
# both, the title what was swept; PNG and SVG written
expect 0 "two.dat, $tmp/two.png, $tmp/two.svg" -- sweep --gpus 64,1,8 --topology dgx-h100,dgx1-v100 -o "$tmp/two"
blocks=$(awk -F, '/^# series/ { n++; name[n] = $0; next }
  /^[^#]/ && NF > 3 { rows[n]++; g[n] = g[n] " " $3 }
  END { for (i = 1; i <= n; i++) printf "%s|%d|%s;", name[i], rows[i], g[i]; print "" }' "$tmp/two.dat")
if [ "$blocks" = "# series 1: DGX H100|3| 1 8 64;# series 2: DGX-1 (V100)|3| 1 8 64;" ]; then ok
else ko "two-topology sweep series: $blocks"; fi
# each block holds one topology: no row of one in the other's block
if awk -F, '/^# series/ { want = ($0 ~ /H100/) ? "DGX H100" : "DGX-1 (V100)"; next }
  /^[^#]/ && NF > 3 && $2 != want { bad = 1 } END { exit bad }' "$tmp/two.dat"; then ok; else ko "mixed series block"; fi
if [ "$(grep -c '^$' "$tmp/two.dat")" -eq 2 ]; then ok; else ko "blocks not two blank lines apart"; fi
if head -c 8 "$tmp/two.png" | grep -q PNG && grep -q "<title>DGX H100</title>" "$tmp/two.svg" \
   && grep -q "<title>DGX-1 (V100)</title>" "$tmp/two.svg" && grep -q "GPUs 64, 1, 8; topology dgx-h100, dgx1-v100" "$tmp/two.svg"
then ok; else ko "two-topology plot pictures, legend or title"; fi
# strategies as a sweep's axis: Llama-3-8B's weights, gradients and Adam
# state are 16 bytes a parameter (128 GB), more than an H100's 80, under
# DDP at any GPU count; FSDP shards all three (16 B x 8.0e9 / 8 = 16 GB a
# GPU) and fits.  One series per strategy, named for it; the points that
# do not fit are ringed in the picture and "NO" in the table
expect 0 "strat.dat" -- sweep --model llama3-8b --gpus 16,8 --strategy ddp,fsdp --batch 1 --flash-attention \
  --checkpoint -o "$tmp/strat"
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
  { n++; got = got $h["strategy"] ":" $h["gpus"] ":" $h["fits"] " " }
  END { exit !(n == 4 && got == "ddp:16:0 ddp:8:0 fsdp:16:1 fsdp:8:1 ") }' "$tmp/strat.csv" \
   && [ "$(grep -c '^# series' "$tmp/strat.dat")" -eq 2 ] && grep -q '^# series 2: fsdp' "$tmp/strat.dat" \
   && grep -q "does not fit in GPU memory" "$tmp/strat.svg" && grep -q "^DGX H100 *ddp .* NO " "$tmp/out"
then ok; else ko "sweep --strategy ddp,fsdp: series, fits and ringed points"; fi
expect 2 "\-\-strategy: with \-\-tp or \-\-pp .* not fsdp" -- sweep --gpus 8 --strategy ddp,fsdp --tp 2
expect 2 "\-\-strategy: 'zero9' is not" -- sweep --gpus 8 --strategy ddp,zero9
# a small model's size in millions (the zoo MLP's 4,198,400 parameters:
# "4.2 M", not "0.004 B"), per-GPU throughput without an exponent
expect 0 "model          4.2 M parameters in 8 tensors" -- predict --model mlp --gpus 2
if grep -q "samples/s ([0-9]* per GPU)" "$tmp/out" && ! grep -q "e+0" "$tmp/out"; then ok; else ko "per-GPU figure: $(grep throughput "$tmp/out")"; fi
# --seq-len: a transformer at another length (zoo file or config.json):
# tokens/s is samples/s times the tokens of a sample, 2048 here where
# Llama-3-8B's file says 8192; learned positions cap it (GPT-2 XL's 1024),
# a model without tokens and one measured at its own length refuse it
"$bin" predict --model llama3-8b --seq-len 2048 --gpus 8 --format json >"$tmp/seq.json" 2>/dev/null
if awk -v t="$(num tokens_per_s "$tmp/seq.json")" -v s="$(num samples_per_s "$tmp/seq.json")" \
     'BEGIN { r = t / s; exit !(r > 2047.999 && r < 2048.001) }'; then ok; else ko "--seq-len 2048: tokens per sample"; fi
expect 0 "; 1024 tokens per sample" -- predict --model "$(dirname "$0")/data/hf/Llama-3.2-1B.json" --seq-len 1024 --gpus 8
expect 2 "\-\-seq-len: 4096 is longer than GPT-2 XL's 1024 learned positions" -- predict --model gpt2-xl --seq-len 4096
expect 2 "\-\-seq-len: ResNet-50 has no tokens" -- sweep --model resnet50 --seq-len 128 --gpus 8
printf 'layer,params,forward_ms,backward_ms\nfc,10,1,2\n' >"$tmp/seq.csv"
expect 2 "\-\-seq-len: .*seq.csv.*: a per-layer CSV is measured at its own length" -- advise --model "$tmp/seq.csv" --seq-len 64
# what PyTorch users set to fit: GPT-2 XL at 12 sequences a GPU does not fit
# an H100 (116 GB of activations); flash attention drops the score matrices
# (it fits) and fuses attention into one kernel without the passes over
# the scores (compute 0.52 -> 0.43 s: faster, by less than a third);
# checkpointing keeps block inputs and runs each block's forward again
# (its compute grows by a forward, about half of backward's, and it fits)
for v in eager flash ckpt; do
  case $v in eager) f="";; flash) f="--flash-attention";; ckpt) f="--checkpoint";; esac
  # shellcheck disable=SC2086
  "$bin" predict --model gpt2-xl --gpus 8 --batch 12 $f --format json >"$tmp/m-$v.json" 2>/dev/null
done
if grep -q '"fits" : false' "$tmp/m-eager.json" && grep -q '"fits" : true' "$tmp/m-flash.json" \
   && grep -q '"fits" : true' "$tmp/m-ckpt.json" \
   && awk -v a="$(num compute_s "$tmp/m-eager.json")" -v b="$(num compute_s "$tmp/m-flash.json")" \
        'BEGIN { exit !(b < a && b > 0.67 * a) }' \
   && awk -v a="$(num compute_s "$tmp/m-eager.json")" -v b="$(num compute_s "$tmp/m-ckpt.json")" \
        'BEGIN { exit !(b > 1.2 * a && b < 1.5 * a) }'; then ok
else ko "flash attention / checkpointing: fits and compute as stated"; fi
# --attention: flash is --flash-attention (the same JSON); cudnn's kernel
# is faster on an H100 (FlashAttention-3's figure: 1.62 x), so less
# compute, and no faster on an A100 (the same compute); the memory is
# flash's (no score matrices either way); the report and the JSON name it
"$bin" predict --model gpt2-xl --gpus 8 --batch 12 --attention flash --format json >"$tmp/m-flash2.json" 2>/dev/null
"$bin" predict --model gpt2-xl --gpus 8 --batch 12 --attention cudnn --format json >"$tmp/m-cudnn.json" 2>/dev/null
"$bin" predict --model gpt2-xl --topology dgx-a100 --gpus 8 --batch 12 --flash-attention --format json >"$tmp/a-flash.json" 2>/dev/null
"$bin" predict --model gpt2-xl --topology dgx-a100 --gpus 8 --batch 12 --attention cudnn --format json >"$tmp/a-cudnn.json" 2>/dev/null
if [ "$(sed 's/"attention" : "flash"/X/' "$tmp/m-flash.json")" = "$(sed 's/"attention" : "flash"/X/' "$tmp/m-flash2.json")" ] \
   && grep -q '"attention" : "cudnn"' "$tmp/m-cudnn.json" \
   && [ "$(num total "$tmp/m-cudnn.json")" = "$(num total "$tmp/m-flash.json")" ] \
   && awk -v a="$(num compute_s "$tmp/m-flash.json")" -v b="$(num compute_s "$tmp/m-cudnn.json")" 'BEGIN { exit !(b < 0.97 * a) }' \
   && [ "$(num compute_s "$tmp/a-flash.json")" = "$(num compute_s "$tmp/a-cudnn.json")" ]; then ok
else ko "--attention flash/cudnn: as --flash-attention, faster on an H100 only"; fi
# flags that act on some strategies or layouts only (cli-ddp.c's table):
# each is refused, naming itself, where it would change nothing (a flag
# accepted and ignored reads as applied), and accepted where it acts
while IFS='|' read -r flag off on; do
  # shellcheck disable=SC2086
  expect 2 "^dpscale predict: ${flag%%=*}: only" -- predict --model gpt2 --gpus 8 $off "$flag"
  # shellcheck disable=SC2086
  expect 0 "step time" -- predict --model gpt2 --gpus 8 $on "$flag"
done <<'FLAGS'
--fsdp-unit=layer|--strategy ddp|--strategy zero2
--limit-all-gathers=1|--strategy zero1|--strategy fsdp
--backward-prefetch=post|--strategy zero2|--strategy hsdp
--no-reshard-after-forward|--strategy zero2|--strategy fsdp
--bucket-cap-mb=50|--strategy fsdp|--strategy zero1
--first-bucket-mb=2|--strategy ddp --tp 2|--strategy ddp
--compress=fp16|--strategy hsdp|--strategy ddp
--no-overlap|--strategy ddp --pp 2|--strategy ddp
--grad-as-bucket-view|--strategy zero2|--strategy ddp
--find-unused|--strategy fsdp|--strategy ddp
--vpp=2|--tp 2|--pp 2
--pp-schedule=gpipe|--tp 2|--pp 2
--micro-batches=4|--strategy ddp|--tp 2
--dtype=fp16|--precision fp8|--precision bf16
FLAGS
# a sweep's list of strategies: a flag acts if it acts on one of them,
# whichever comes first; advise's plans run every strategy
expect 0 "" -- sweep --model gpt2 --gpus 8 --strategy ddp,fsdp --fsdp-unit layer --format csv
for l in ddp,fsdp fsdp,ddp; do
  expect 0 "" -- sweep --model gpt2 --gpus 8 --strategy $l --precision fp8 --fp8-all-gather --format csv
done
expect 0 "" -- sweep --model gpt2 --gpus 8 --strategy ddp,hsdp --shard-group 4 --accum-no-sync -k 2 --format csv
expect 0 "^p1 " -- advise --model gpt2 --gpus 16 --shard-group 4
expect 2 "\-\-attention eager: advise's plans of a transformer run fused attention" -- advise --model gpt2 --attention eager
expect 2 "\-\-fsdp-unit: only" -- sweep --model gpt2 --gpus 8 --strategy ddp,zero1 --fsdp-unit layer --format csv
expect 2 "\-\-grad-accum and --micro-batches" -- predict --model gpt2 --gpus 8 --tp 2 --micro-batches 4 --grad-accum 2
# advise searches the layout: its flags are refused, not taken for a baseline
expect 2 "\-\-tp, --pp, .* are what advise searches" -- advise --model gpt2 --gpus 8 --tp 2
expect 2 "are what advise searches" -- advise --model gpt2 --gpus 8 --strategy fsdp
# --global-batch under tensor or pipeline parallelism splits over the
# data-parallel replicas (64 / tp 8 = 8) and their micro-batches (pp 4: 16):
# 256 samples a step either way
for l in "--tp 8" "--pp 4"; do
  # shellcheck disable=SC2086
  "$bin" predict --model llama3-8b --gpus 64 --strategy zero1 $l --flash-attention -G 256 --format json >"$tmp/g.json" 2>/dev/null
  awk -v g="$(num global_batch "$tmp/g.json")" 'BEGIN { exit !(g == 256) }' && ok || ko "-G 256 with $l: $(num global_batch "$tmp/g.json") samples"
done
expect 1 "tp 2 does not divide GPT-2 XL's 25 attention heads" -- predict --model gpt2-xl --gpus 8 --tp 2
# advise's best plan says what it runs (its name's "+sp+overlap" as
# predict's flags): run again by predict with them, the same step
"$bin" advise --model gpt2 --gpus 16 --format json >"$tmp/adv.json" 2>/dev/null
flags=$(python3 -c 'import json, sys
p = [x for x in json.load (open (sys.argv[1])) if x.get ("rank") == "p1"][0]
f = ["--strategy", p["strategy"], "--tp", str (p["tp"]), "--pp", str (p["pp"]), "-b", str (p["micro_batch"]),
     "--attention", p["attention"]]
f += ["--micro-batches", str (p["grad_accum"])] if p["tp"] > 1 or p["pp"] > 1 else ["--grad-accum", str (p["grad_accum"])]
f += ["--vpp", str (p["vpp"])] if p["vpp"] > 1 else []
f += ["--checkpoint"] if p["checkpoint"] else []
for k in ("sequence_parallel", "tp_comm_overlap", "overlap_param_gather"):
    f += ["--" + k.replace ("_", "-")] if p[k] else []
print (" ".join (f), p["step_s"])' "$tmp/adv.json")
want=${flags##* }
# shellcheck disable=SC2086
"$bin" predict --model gpt2 --gpus 16 -m analytical ${flags% *} --format json >"$tmp/again.json" 2>"$tmp/err"
awk -v a="$(num step_s "$tmp/again.json")" -v b="$want" 'BEGIN { exit !(a > 0 && (a - b) / b < 1e-9 && (b - a) / b < 1e-9) }' \
  && ok || ko "advise p1 ($flags) run again: $(num step_s "$tmp/again.json") s, $(cat "$tmp/err")"
# the collectives listed are the critical rank's: GPT-2 at tp 2 x pp 4 runs
# 3 blocks a stage x 4 tensor-parallel all-reduces a block (2 forward, 2
# backward) x 16 micro-batches = 192, not every stage's (768)
"$bin" predict --model gpt2 --gpus 16 --tp 2 --pp 4 --format json >"$tmp/tp.json" 2>/dev/null
python3 -c 'import json, sys; c = json.load (open (sys.argv[1]))["collectives"]
assert [x["count"] for x in c if x["name"] == "all-reduce (tensor parallel)"] == [192], c' "$tmp/tp.json" 2>"$tmp/err" \
  && ok || ko "tp 2 x pp 4: the tensor-parallel all-reduces counted: $(tail -1 "$tmp/err")"
# the breakdown adds up under every strategy and layout: the collectives'
# exposed times sum to "exposed comm" (each stretch of a wait, and the step
# running on after the compute, charged to the collective it waits for:
# an HSDP shard group of one GPU reduce-scatters in no time and is waited
# for in none), comm_total_s is the listed collectives' time and the
# overlap the share of it not waited for, each kind's wait counted up to
# its own time (a pipeline's receive is waited for through the bubble
# too, longer than it runs)
for l in "--strategy ddp" "--strategy zero1" "--strategy fsdp" "--strategy hsdp --shard-group 1" \
         "--strategy zero1 --tp 2 --sequence-parallel" "--strategy zero1 --pp 4" "--strategy ddp --tp 2 --pp 2"; do
  # shellcheck disable=SC2086
  "$bin" predict --model gpt2 --gpus 16 $l --format json >"$tmp/b.json" 2>/dev/null
  if python3 -c '
import json, sys
d = json.load (open (sys.argv[1])); c = d["collectives"]
t = sum (x["time_s"] for x in c); e = sum (x["exposed_s"] for x in c)
assert abs (e - d["exposed_comm_s"]) <= 1e-9 + 1e-6 * e, (e, d["exposed_comm_s"])
assert len (c) == 1 or abs (t - d["comm_total_s"]) <= 1e-6 * t, (t, d["comm_total_s"])
if len (c) > 1:
    hidden = 1 - sum (min (x["exposed_s"], x["time_s"]) for x in c) / t
    assert abs (d["overlap"] - hidden) <= 1e-9, (d["overlap"], hidden)
assert all (x["exposed_s"] == 0 for x in c if x["time_s"] == 0), c' "$tmp/b.json" 2>"$tmp/err"; then ok
  else ko "breakdown with $l: $(tail -1 "$tmp/err")"; fi
done
# scaling efficiency above 100% says why: GPT-2 XL's bf16 optimizer step,
# 19 ms on one GPU, is 0.6 ms on each of 32 sharding it
expect 0 "113.1 %.*above 100%: each GPU steps 1/N of the optimizer" -- predict --model gpt2-xl --gpus 32 --strategy zero2 \
  --precision bf16 --grad-dtype bf16 -b 1 --checkpoint --flash-attention
# topo lays out the GPUs asked for (4 of a node), as predict does
expect 0 "tp 2 x pp 1 x dp 2" -- topo dgx-h100 --gpus 4 --tp 2
expect 0 "1 node x 8 GPUs = 8 GPUs, 4 of them in use" -- topo dgx-h100 --gpus 4
expect 2 "no CSV file given" -- plot
"$bin" sweep --model gpt2 --gpus 8,16 --format csv -o "$tmp/swcsv" >"$tmp/out" 2>&1 && [ -s "$tmp/swcsv" ] && [ ! -s "$tmp/out" ] \
  && ok || ko "sweep --format csv -o FILE: no file"
expect 0 "attention fused by cuDNN" -- predict --model gpt2-xl --gpus 8 --attention cudnn
expect 2 "\-\-attention: 'eager' contradicts --flash-attention" -- predict --attention eager --flash-attention
expect 0 "p1 .* +cudnn" -- advise --model gpt2-xl --gpus 8 --attention cudnn
# sweep --format json (as --help offers): one object per point with the
# CSV's columns, numbers as numbers, not-computed fields null (no price on
# gcp-a3-high); -o writes it
if "$bin" sweep --gpus 1,8 --topology gcp-a3-high --format json -o "$tmp/sw.json" 2>"$tmp/err" \
   && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["points"]; assert [x["gpus"] for x in p]==[1,8] and p[1]["step_s"]>0 and p[0]["cost_per_step_usd"] is None' "$tmp/sw.json"
then ok; else ko "sweep --format json: $(cat "$tmp/err")"; fi
# advise: its "defaults" row is predict's figure for PyTorch's defaults
# (analytical model, the same step), every candidate it ranks is at least
# as fast as the rows below it, and the settings it searches are refused
# as flags (16 GPUs: the search is the same at any size, and a fifth of
# 64's time under the sanitizers)
"$bin" advise --gpus 16 >"$tmp/adv" 2>"$tmp/err"
step_ms () { "$bin" predict --mode analytical "$@" --format csv 2>/dev/null | awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) if (h[i] == "step_s") printf "%.2f", $i * 1e3 } NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i }'; }
want=$(step_ms --gpus 16)
if awk -v w="$want" '$1 == "defaults" { found = ($8 == w) } END { exit !found }' "$tmp/adv" \
   && awk '$1 ~ /^[1-5]$/ { if (prev != "" && $9 > prev) bad = 1; prev = $9 } END { exit bad }' "$tmp/adv" \
   && grep -q "^best: +" "$tmp/adv"; then ok; else ko "advise: defaults row against predict's $want ms: $(head -5 "$tmp/adv")"; fi
# its parallelism table ranks the plans that fit, fastest first (samples/s
# is the fifth column from the end), and says why the best wins
if awk '$1 ~ /^p[1-5]$/ { v = $(NF - 4); if (prev != "" && v > prev) bad = 1; prev = v; n++ } END { exit bad || n < 1 }' "$tmp/adv" \
   && grep -q "^best plan: " "$tmp/adv"; then ok; else ko "advise: plans not ranked: $(grep -A8 '^parallelism' "$tmp/adv")"; fi
# pipelines are searched with virtual stages too (Megatron's interleaved
# 1F1B, vpp 2): GPT-2 on 8 GPUs has such plans, each with a pipeline of 2
# or more stages and micro-batches that fill whole rounds of them
"$bin" advise --model gpt2 --gpus 8 --format csv >"$tmp/advv" 2>"$tmp/err"
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
  $h["vpp"] == 2 { n++; if ($h["pp"] < 2 || $h["grad_accum"] % $h["pp"]) bad = 1 }
  END { exit bad || n < 1 }' "$tmp/advv"; then ok; else ko "advise: no interleaved plans: $(head -3 "$tmp/advv")"; fi
# where DDP does not fit (Llama-3-8B at 2 sequences of 8192 tokens a GPU:
# 925 GB), advise says so and finds a sharded plan that fits on its own
"$bin" advise --model llama3-8b --gpus 64 --batch 2 >"$tmp/adv8" 2>"$tmp/err"
if grep -q "DDP's defaults DO NOT FIT" "$tmp/adv8" && grep -q "^best plan: \(fsdp\|hsdp\|zero\)" "$tmp/adv8"; then ok
else ko "advise llama3-8b: $(grep -A4 '^parallelism' "$tmp/adv8")"; fi
expect 2 "what advise searches" -- advise --bucket-cap-mb 50
# --global-batch 128 on 16 GPUs is 8 samples a GPU: advise's rows split
# those 8 (its defaults row "8 x 1", the step of advise --batch 8), not
# the default 4 while simulating 8 (which told users to halve their batch)
"$bin" advise --gpus 16 --global-batch 128 >"$tmp/advg" 2>"$tmp/err"
if grep -q "global batch 128," "$tmp/advg" && [ -n "$(awk '$1 == "defaults" && $3 == "8" && $5 == "1"' "$tmp/advg")" ] \
   && [ "$(awk '$1 == "defaults" { print $8 }' "$tmp/advg")" = "$(step_ms --gpus 16 --batch 8)" ] \
   && ! awk '$1 ~ /^[1-5]$/ || $1 ~ /^p[1-5]$/' "$tmp/advg" | grep -q " 4 x 1 \| 2 x 2 \| 1 x 4 "; then ok
else ko "advise --global-batch 128: $(grep -A3 '^ *cap_MiB' "$tmp/advg")"; fi
expect 2 "\-\-global-batch: 100 samples do not split evenly over 64 GPUs" -- advise --gpus 64 --global-batch 100
# --format csv and json: the same defaults row as the table (step_s x 1000 = its step_ms), every
# candidate that fits, each kind ranked by samples/s, fastest first
"$bin" advise --gpus 8 >"$tmp/advt" 2>/dev/null
"$bin" advise --gpus 8 --format csv >"$tmp/adv.csv" 2>/dev/null
"$bin" advise --gpus 8 --format json >"$tmp/adv.json" 2>/dev/null
tstep=$(awk '$1 == "defaults" { print $8 }' "$tmp/advt")
cstep=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i } $1 == "defaults" { printf "%.2f", $h["step_s"] * 1e3 }' "$tmp/adv.csv")
if head -1 "$tmp/adv.csv" | grep -q "^rank,kind,.*,step_s,samples_per_s,.*,memory_GB,fits," && [ -n "$tstep" ] && [ "$tstep" = "$cstep" ] \
   && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $1 != "defaults" { v = $h["samples_per_s"]; if (last[$2] != "" && v > last[$2]) bad = 1; last[$2] = v; n[$2]++ }
               END { exit bad || n["ddp-settings"] < 1 || n["plan"] < 1 }' "$tmp/adv.csv" \
   && [ "$(grep -c '"rank" :' "$tmp/adv.json")" -eq "$(($(wc -l <"$tmp/adv.csv") - 1))" ]; then ok
else ko "advise --format csv/json: table $tstep ms, csv $cstep ms: $(head -3 "$tmp/adv.csv")"; fi
expect 2 "\-\-batch and \-\-global-batch" -- advise --gpus 64 --global-batch 512 --batch 8
# advise over cluster sizes: GPT-2 at one global batch of 512 on 8 and 64
# GPUs.  Each size's row is the fastest plan that fits there (the same as
# advise --gpus N --global-batch 512 finds first); with the batch held,
# 64 GPUs take 8 samples each where 8 take 64, so the larger is faster
# and the smaller spends fewer GPU-seconds a sample (its all-reduce is
# amortised over 8 times the samples): fastest 64, cheapest 8, and the
# marks follow the numbers (max samples/s, min GPU-seconds a sample).
"$bin" advise --model gpt2 --gpus 8,64 --global-batch 512 --format json >"$tmp/sizes.json" 2>"$tmp/err"
"$bin" advise --model gpt2 --gpus 64 --global-batch 512 --format json >"$tmp/one.json" 2>/dev/null
if python3 -c 'import json, sys
rows, one = (json.load(open(f)) for f in sys.argv[1:])
assert [r["gpus"] for r in rows] == [8, 64] and all(r["fits"] for r in rows)
f = max(rows, key=lambda r: r["samples_per_s"]); c = min(rows, key=lambda r: r["gpu_s_per_sample"])
assert f["gpus"] == 64 and f["best"] == "fastest" and c["gpus"] == 8 and c["best"] == "cheapest", rows
for r in rows:
    assert abs(r["gpu_s_per_sample"] * r["samples_per_s"] - r["gpus"]) < 1e-6 * r["gpus"]
    assert r["micro_batch"] * r["grad_accum"] == 512 // r["gpus"] * r["tp"] * r["pp"]
p1 = next(r for r in one if r["kind"] == "plan")
assert abs(p1["samples_per_s"] - rows[1]["samples_per_s"]) < 1e-9 * p1["samples_per_s"], (p1, rows[1])' \
   "$tmp/sizes.json" "$tmp/one.json"; then ok
else ko "advise --gpus 8,64: $(head -c 400 "$tmp/sizes.json") $(cat "$tmp/err")"; fi
# the table says the same in words (8 and 16 GPUs at 128: a third of the time)
expect 0 "^fastest: 16 GPUs, .* cheapest: 8 GPUs" -- advise --model gpt2 --gpus 8,16 --global-batch 128
expect 2 "\-\-gpus: a global batch of 16 samples does not split evenly over 12 GPUs" -- advise --gpus 8,12 --global-batch 16
expect 2 "\-\-nodes: with a list of \-\-gpus" -- advise --gpus 8,16 --nodes 2
# a price per topology: the file's price_per_gpu_hour_usd prices its own
# rows (8 GPUs x $3/h x step_s / 3600 per step, per million samples that
# over 32 samples x 1e6), a topology without one has empty cost fields and
# "-" in the table; --price-per-gpu-hour overrides every topology's
sed 's/^price_per_gpu_hour_usd = .*$/price_per_gpu_hour_usd = 3/' "$(dirname "$0")/../topologies/dgx-h100.topo" >"$tmp/priced.topo"
expect 0 "usd/Msample" -- sweep --gpus 8 --topology "$tmp/priced.topo,gcp-a3-high" -o "$tmp/priced"
if awk '/^DGX H100 / { want = 8 * 3 * $8 / 1000 / 3600 / 32 * 1e6; d = $NF - want; found = d < 0.01 && d > -0.01 }
        END { exit !found }' "$tmp/out" && grep -q "^GCP A3 High .* -$" "$tmp/out"; then ok
else ko "sweep table cost column: $(cat "$tmp/out")"; fi
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
  $2 == "DGX H100" { want = 8 * 3 * $10 / 3600; d = $h["cost_per_step_usd"] - want
                     m = $h["cost_per_msample_usd"] - want / 32 * 1e6
                     if ($h["price_per_gpu_hour_usd"] != 3 || d > 1e-9 || d < -1e-9 || m > 1e-5 || m < -1e-5) bad = 1 }
  $2 == "GCP A3 High" && ($h["cost_per_step_usd"] != "" || $h["price_per_gpu_hour_usd"] != "") { bad = 1 }
  END { exit bad }' "$tmp/priced.csv"; then ok; else ko "sweep cost per topology: $(cat "$tmp/priced.csv")"; fi
expect 0 "" -- sweep --gpus 8 --topology "$tmp/priced.topo,gcp-a3-high" --price-per-gpu-hour 2 --format csv
if [ "$(col price_per_gpu_hour_usd "$tmp/out" | tr '\n' ' ')" = "2 2 " ]; then ok; else ko "--price-per-gpu-hour did not override"; fi
sed 's/^price_per_gpu_hour_usd = .*$/price_per_gpu_hour_usd = -1/' "$(dirname "$0")/../topologies/dgx-h100.topo" >"$tmp/negprice.topo"
expect 1 "negprice.topo:12: \[system\] price_per_gpu_hour_usd: -1 is out of range" -- predict --topology "$tmp/negprice.topo"
expect 2 "100000 points asked for, the limit is 10000" -- sweep --gpus 1,2,4,8,16,32,64,128,256,512 --bucket-cap-mb 1,2,3,4,5,6,7,8,9,10 --batch 1,2,3,4,5,6,7,8,9,10 --grad-accum 1,2,3,4,5,6,7,8,9,10 --topology dgx-h100,dgx-a100,aws-p5,aws-p4de,dgx1-v100,pcie-8gpu-2x100g,workstation-4gpu,gb200-nvl72,dgx-h100-oversub2,dgx-h100

# a profile's layer times on another device: an A100's transferred to the
# H100 (faster: x0.3 to x0.6, between the bandwidth and the peak ratios),
# used as measured on an A100; CPU cores' refused for a GPU, and said
f=$(printf '2.5,%.0s' $(seq 17))2.5 b=$(printf '5,%.0s' $(seq 17))5
printf '[profile]\nformat = 1\nbackend = gpu-nccl\ndevices = 0:NVIDIA A100-SXM4-80GB\n[machine]\nranks_per_node = 1\n[layers.ResNet-50]\nbatch = 256\nforward_ms = %s\nbackward_ms = %s\n' "$f" "$b" >"$tmp/a100.calib"
sed 's/gpu-nccl/cpu-mpi/; s/0:NVIDIA A100-SXM4-80GB/16 CPU cores/' "$tmp/a100.calib" >"$tmp/cpu.calib"
rn="--model resnet50 --batch 256 --gpus 8"
expect 0 "transferred from A100 (NVIDIA A100-SXM4-80GB in .*a100.calib) to H100 SXM5: compute x 0\.[3-6]" -- predict $rn --calibration "$tmp/a100.calib" --topology dgx-h100
# (one GPU: 18 layers x 7.5 ms, no DDP around it to add its copies or contention)
expect 0 "compute *135.00 ms" -- predict --model resnet50 --batch 256 --gpus 1 --calibration "$tmp/a100.calib" --topology dgx-a100
# DDP's own costs named at 8 GPUs, none at one
expect 0 "ddp overhead .*bucket copies .* at HBM bandwidth, per-tensor hooks' kernels" -- predict $rn --topology dgx-h100
"$bin" predict --model resnet50 --batch 256 --gpus 1 --topology dgx-h100 | grep -q "ddp overhead" && ko "predict at one GPU shows a ddp overhead line" || ok
expect 0 "used as measured" -- predict $rn --calibration "$tmp/a100.calib" --topology dgx-a100
# the GPU's own contention by default (NCCL's SMs and HBM traffic), none when 0 is given
expect 0 "contention .*of compute: [1-9][0-9]*% slower while all-reduces overlap it" -- predict $rn --topology dgx-h100
"$bin" predict $rn --topology dgx-h100 --contention 0 | grep -q "contention  " && ko "predict --contention 0 still shows a contention line" || ok
expect 0 "measured on CPU cores (16 CPU cores): not used for the H100 SXM5" -- predict $rn --calibration "$tmp/cpu.calib" --topology dgx-h100
"$bin" predict $rn --topology dgx-h100 | grep "compute  " >"$tmp/plain"
"$bin" predict $rn --calibration "$tmp/cpu.calib" --topology dgx-h100 | grep "compute  " >"$tmp/refused"
if cmp -s "$tmp/plain" "$tmp/refused"; then ok; else ko "refused CPU layers still changed the H100's compute"; fi

# dpscale plot: any CSV dpscale writes, by its header
expect 0 "wrote" -- plot "$tmp/sw.csv" -o "$tmp/replot"
if [ -s "$tmp/replot.png" ] && [ -s "$tmp/replot.svg" ]; then ok; else ko "plot files"; fi
"$bin" collective --format csv -b 1K -e 1M -o "$tmp/col.csv" >/dev/null 2>&1
expect 0 "col.png" -- plot "$tmp/col.csv"
printf 'a,b\n1,2\n' >"$tmp/other.csv"
expect 1 "other.csv:1: not a CSV dpscale writes" -- plot "$tmp/other.csv"
expect 1 "is a directory" -- plot "$tmp"
expect 2 "\-\-breakdown: only for a validation CSV" -- plot "$tmp/col.csv" --breakdown
# a step timeline labels only the lanes it has: two measured replicas, one
# predicted (alike replicas are drawn once), no row for replicas 2 and 3
printf 'source,lane,start_ms,end_ms,kind\n0,0,0,10,0\n0,1,0,11,0\n0,-1,5,12,1\n0,-2,12,13,2\n1,0,0,10.5,0\n1,-1,5,12.5,1\n1,-2,12.5,13.5,2\n' >"$tmp/tl.csv"
expect 0 "tl.svg" -- plot "$tmp/tl.csv"
if [ "$(grep -c '>measured replica 0<\|>replica 1<\|>predicted replica 0<' "$tmp/tl.svg")" = 3 ] \
   && ! grep -q '>replica [23]<\|>predicted replica 1<' "$tmp/tl.svg"; then ok
else ko "timeline lanes: $(grep -o '>[a-z ]*replica [0-9]<' "$tmp/tl.svg" | tr '\n' ' ')"; fi
# without gnuplot: a clear error naming the package
if PATH=/nonexistent "$bin" plot "$tmp/col.csv" 2>"$tmp/err"; then ko "plot without gnuplot"
else grep -q "apt-get install gnuplot-nox" "$tmp/err" && ok || ko "gnuplot message"; fi

# a log of two runs (8 ranks on one host, then 16 behind Slurm's srun
# --label on two): each table compared on its own, named by the line its
# run starts on (35: the first log's 33 lines and the second's comment
# before its nThread line), and summed up as two tables
d="$(dirname "$0")/data"
{ cat "$d/nccl-tests-1x8.log"; sed 's/^/3: /' "$d/nccl-tests-2x8-old.log"; } >"$tmp/runs.log"
"$bin" collective --compare "$tmp/runs.log" --topology dgx-h100 >"$tmp/out" 2>"$tmp/err"
if grep -q "^# $tmp/runs.log:1: runs.log, allreduce on 8 ranks (1 host)" "$tmp/out" \
   && grep -q "^# $tmp/runs.log:35: runs.log, allreduce on 16 ranks (2 hosts)" "$tmp/out" \
   && grep -q "^# suite: 2 tables, 1 system" "$tmp/out"; then ok; else ko "compare of a log of two runs: $(head -3 "$tmp/err")"; fi

# a log's GPUs against another topology's: said, still done (V100s against
# dgx-h100's H100 SXM5; dgx1-v100 and dgx2-v100 have them)
"$bin" collective --compare "$d/nccl-tests-2x8-old.log" --topology dgx-h100 >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && grep -q "nccl-tests-2x8-old.log: its GPUs are Tesla V100-SXM2-32GB, dgx-h100's are H100 SXM5 (shipped with them: dgx1-v100, dgx2-v100, v100-mesh-1x100g)" "$tmp/err"
then ok; else ko "compare against another GPU's topology: $(head -2 "$tmp/err")"; fi
cat "$d/nccl-tests-2x8-old.log" "$d/nccl-tests-2x8-old.log" >"$tmp/v2.log"
"$bin" collective --compare "$tmp/v2.log" --topology dgx-h100 >"$tmp/out" 2>"$tmp/err"
if [ "$(grep -c "its GPUs are" "$tmp/err")" -eq 1 ]; then ok; else ko "the GPUs' note not once for a log of two tables"; fi
"$bin" calibrate --import "$d/nccl-tests-2x8-old.log" -o "$tmp/v100.calib" >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && grep -q "its GPUs are Tesla V100-SXM2-32GB, dgx-h100 (the default)'s are H100 SXM5: give --topology (shipped with them: dgx1-v100, dgx2-v100, v100-mesh-1x100g)" "$tmp/err" "$tmp/out"
then ok; else ko "import against the default topology: $(head -2 "$tmp/err")"; fi
"$bin" calibrate --import "$d/nccl-tests-2x8-old.log" --topology dgx1-v100 -o "$tmp/v100.calib" >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && ! grep -q "its GPUs are" "$tmp/err" "$tmp/out"; then ok; else ko "import against its own GPU's topology warned"; fi

finish cli

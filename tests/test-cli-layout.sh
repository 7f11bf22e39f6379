#!/bin/sh
# Layouts and strategies on the command line: where tensor, pipeline and
# data-parallel groups land, the flags each strategy or layout takes and
# refuses, offload, and the breakdown adding up under each.  Usage:
# test-cli-layout.sh DPSCALE_BINARY
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"

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
expect 0 "note: tensor parallel 16 spans nodes of 8 GPUs" -- topo dgx-h100 --nodes 2 --tp 16
expect 2 "--tp/--pp: tp 3 x pp 1 does not divide the 8 GPUs" -- topo dgx-h100 --tp 3
# groups crossing nodes share the node's NICs: Jean Zay's 4 Omni-Path links
# of 12.1 GB/s for 8 GPUs, 4 x 12.1 / 8 = 6.1 GB/s a GPU; none said where
# every group stays inside a node
expect 0 "a node's 8 GPUs share its 4 NICs (12.1 GB/s each way): 6.1 GB/s a GPU" -- topo jean-zay-a100 --gpus 384 --tp 8 --pp 6
if "$bin" topo dgx-h100 --gpus 8 --tp 2 2>&1 | grep -q "^  across nodes"; then
  ko "topo dgx-h100 --gpus 8 --tp 2 says groups cross nodes"
else ok; fi
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
--no-overlap|--strategy fsdp|--strategy zero1 --pp 2
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
expect 0 "1[0-9][0-9]\.[0-9] %.*above 100%: each GPU steps 1/N of the optimizer" -- predict --model gpt2-xl --gpus 32 --strategy zero2 \
  --precision bf16 --grad-dtype bf16 -b 1 --checkpoint --flash-attention

finish cli-layout

#!/bin/sh
# dpscale advise on the command line: the plans it ranks, the FSDP settings
# and layouts it searches, several GPU counts, and what its best plan
# says it runs.  Usage: test-cli-advise.sh DPSCALE_BINARY
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"

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

finish cli-advise

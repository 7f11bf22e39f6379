#!/bin/sh
# The sharded strategies of the real runner (dpscale run --strategy:
# zero1, zero2, fsdp, hsdp) train the same model as DDP: after the same
# steps from the same seed, every parameter equals DDP's up to the order
# in which fp32 sums are taken.  Also: their collectives in the report and
# the trace, emulation, emulated nodes (root), and the flags refused.
# Usage: test-run-strategies.sh DPSCALE_BINARY PARAMS_DIFF_BINARY
set -u
bin=$1
diff=$2
. "$(dirname "$0")/cli-lib.sh"

# Two small models whose units do not divide evenly, so that the shards
# are padded (real/shard-layout.h): an MLP 36-29-22-7 (units of 1073, 660
# and 161 parameters: 1073 and 161 pad at 2 ranks and at 4) and a GPT-2
# stack of 2 blocks, hidden 18 (units of 810, 2938 and 36: 810 and 2938
# pad at 4), whose LM head is tied to the embedding (layer 0's parameters
# read again by the last layer)
printf '[model]\nname = MLP odd\narchitecture = mlp\nwidths = 36,29,22,7\n' >"$tmp/odd.model"
printf '[model]\nname = GPT-2 tiny\narchitecture = gpt2\nlayers = 2\nhidden = 18\nheads = 3\nffn = 40\nvocab = 37\nseq = 8\n' \
  >"$tmp/tiny.model"

# train MODEL RANKS NAME STRATEGY [FLAGS...]: 5 steps, the parameters saved to $tmp/NAME.bin
train () {
  t_model=$1 t_ranks=$2 t_name=$3 t_strategy=$4
  shift 4
  if "$bin" run --model "$t_model" --gpus "$t_ranks" --steps 5 --warmup 1 --strategy "$t_strategy" \
       --save-params "$tmp/$t_name.bin" --format json "$@" >"$tmp/$t_name.json" 2>"$tmp/err"; then ok
  else ko "$t_name: $(tail -2 "$tmp/err")"; return 1; fi
}
hash_of () { sed -n 's/.*"params_hash" : "\([0-9]*\)".*/\1/p' "$1"; }

# With two replicas every sum over replicas is of two numbers, and a + b
# is b + a exactly in IEEE arithmetic: the all-reduce, the reduce-scatter
# and HSDP's reductions give the very same gradients, the optimizer updates
# each element from its own gradient alone (a shard as in the whole), so
# every strategy's parameters are DDP's bit for bit (equal hashes of their
# bits), padding or not, SGD or Adam.
for model in odd:sgd tiny:adam mlp:sgd; do
  m=${model%%:*} opt=${model#*:}
  [ "$m" = mlp ] || m="$tmp/$m.model"
  name=$(basename "$m" .model)
  train "$m" 2 "$name-ddp2" ddp --optimizer "$opt" --batch 4 || continue
  ref=$(hash_of "$tmp/$name-ddp2.json")
  for st in zero1 zero2 fsdp; do
    train "$m" 2 "$name-${st}2" "$st" --optimizer "$opt" --batch 4 || continue
    h=$(hash_of "$tmp/$name-${st}2.json")
    if [ -n "$ref" ] && [ "$h" = "$ref" ]; then ok; else ko "$model, 2 replicas: $st's parameters hash $h, DDP's $ref"; fi
  done
done

# With four, sums are taken in another order: ((a + b) + c) + d against
# (a + b) + (c + d) differs by rounding.  Each step's gradient then differs
# by about log2(N) x eps (6e-8) x its condition (sum |g_r| / |sum g_r|)
# relative, and the parameters after S steps by S times that, relative to
# the largest of them.  Measured (5 steps, 4 replicas, the largest
# |p - p_ddp| over the largest |p_ddp|): SGD, the odd MLP 5.7e-8, the
# zoo's MLP 6.0e-7 (zero2 and fsdp; zero1 and hsdp came out bit for bit on
# Open MPI 4.1, whose all-reduce of 4 adds pairs first, as HSDP does);
# Adam, the GPT-2 stack, 4.9e-7 (Adam divides each gradient by its own
# running size, so a near-zero gradient's rounding is not scaled down by
# its smallness); with 3 micro-steps, each reduced on its own, 4.8e-7
# (zero2, fsdp) and 8.0e-7 (hsdp).  Bounds with a margin of 8 or more:
# 5e-6 (SGD) and 1e-5 (Adam).  A fault is 100 times larger: a shard not
# updated or a gradient scaled wrong moves parameters by lr x gradient a
# step (1e-3 of the largest for Adam's lr, more for SGD's); a layer
# computed on parameters not gathered gives NaN (--save-params implies
# --check-params, under which freed parameters are NaN), which params-diff
# refuses.
compare () {
  if out=$("$diff" "$tmp/$1.bin" "$tmp/$2.bin" 2>"$tmp/err"); then
    rel=$(echo "$out" | awk '{ print $4 }')
    if awk "BEGIN { exit !($rel <= $3) }"; then ok; else ko "$1 against $2: relative difference $rel over $3"; fi
    echo "run-strategies: $1 against $2: $out (count, max |diff|, max |p|, relative)"
  else ko "$1 against $2: $(cat "$tmp/err")"; fi
}
for model in odd:sgd:5e-6 tiny:adam:1e-5 mlp:sgd:5e-6; do
  m=${model%%:*} rest=${model#*:} opt=${rest%%:*} tol=${rest#*:}
  [ "$m" = mlp ] || m="$tmp/$m.model"
  name=$(basename "$m" .model)
  train "$m" 4 "$name-ddp4" ddp --optimizer "$opt" --batch 4 || continue
  for st in zero1 zero2 fsdp hsdp; do
    sg=
    [ "$st" = hsdp ] && sg="--shard-group 2"
    # shellcheck disable=SC2086
    train "$m" 4 "$name-${st}4" "$st" $sg --optimizer "$opt" --batch 4 && compare "$name-${st}4" "$name-ddp4" "$tol"
  done
done
# gradient accumulation (3 micro-steps): DDP and ZeRO-1 add them up
# locally, the others reduce each micro-step's into the shard
train "$tmp/tiny.model" 4 acc-ddp ddp --batch 2 --grad-accum 3
for st in zero2 fsdp hsdp; do
  sg=
  [ "$st" = hsdp ] && sg="--shard-group 2"
  # shellcheck disable=SC2086
  train "$tmp/tiny.model" 4 "acc-$st" "$st" $sg --batch 2 --grad-accum 3 && compare "acc-$st" acc-ddp 1e-5
done

# Tensor parallelism (dpscale run --tp, real/tensor-parallel.h): a GPT-2
# stack of 2 blocks, hidden 16 in 4 heads, MLP 40, split over groups of 2
# and 4 consecutive ranks, trains the same model as data parallelism alone
# at the same replicas and batch: the whole parameters (each rank's part
# put back, --save-params) equal them up to the order of fp32 sums.  The
# split adds partial sums (the row-parallel projections' outputs, the
# column-parallel layers' input gradients) in another order, relative
# rounding of about eps (6e-8) a sum.  Measured (5 steps): SGD 3.7e-9 (tp 2
# and tp 4 on one replica, tp 2 x dp 2 against 2 replicas); Adam 1.3e-6
# (tp 2), 1.8e-6 (tp 4), 1.1e-6 (tp 2 x dp 2), Adam scaling a small
# gradient's rounding up (above).  Bounds as the strategies': 5e-6 and
# 1e-5.  A fault is far larger: an all-reduce left out makes a rank's
# gradient a part of the whole (differences of lr x gradient, 1e-3 of the
# largest parameter and more).
printf '[model]\nname = GPT-2 tiny4\narchitecture = gpt2\nlayers = 2\nhidden = 16\nheads = 4\nffn = 40\nvocab = 37\nseq = 8\n' \
  >"$tmp/tiny4.model"
for run in adam:1:1:1e-5 adam:2:1:1e-5 adam:4:1:1e-5 sgd:2:2:5e-6; do
  opt=${run%%:*} rest=${run#*:} tp=${rest%%:*} rest=${rest#*:} dp=${rest%%:*} tol=${rest#*:}
  base="tiny4-dp$dp-$opt"
  [ -s "$tmp/$base.bin" ] || train "$tmp/tiny4.model" "$dp" "$base" ddp --optimizer "$opt" --batch 4 || continue
  [ "$tp" -gt 1 ] || continue
  train "$tmp/tiny4.model" $((tp * dp)) "tiny4-tp$tp-dp$dp-$opt" ddp --tp "$tp" --optimizer "$opt" --batch 4 \
    && compare "tiny4-tp$tp-dp$dp-$opt" "$base" "$tol"
done
if grep -q '"tp" : 2' "$tmp/tiny4-tp2-dp2-sgd.json" && grep -q '"replicas" : 2' "$tmp/tiny4-tp2-dp2-sgd.json"; then ok
else ko "tp 2 x dp 2: $(head -c 300 "$tmp/tiny4-tp2-dp2-sgd.json")"; fi

# Pipeline parallelism (dpscale run --pp, real/pipeline-step.h): the same
# stack in 2 stages (embeddings and block 0; block 1, ln_f and the tied
# head), 1F1B over micro-batches of the replica's batch, the embedding's
# gradient summed between the first and last stage; and a 4-block stack in
# 3 and 4 stages (layers 0-1, 2, 3-5; one block a stage).  Against data
# parallelism alone at the same replicas and batch: the micro-batches'
# mean gradients summed in another order.  Measured (5 steps): SGD 3.7e-9
# (pp 2, pp 2 x dp 2 over 4 micro-batches), Adam 8.3e-7 (pp 2), 6.1e-7
# (pp 3 and 4); bounds as above.  A fault is far larger: the tied
# embedding's two gradients left unsummed 9.8e-3 (pp 2, Adam).
printf '[model]\nname = GPT-2 tiny4x4\narchitecture = gpt2\nlayers = 4\nhidden = 16\nheads = 4\nffn = 40\nvocab = 37\nseq = 8\n' \
  >"$tmp/t44.model"
train "$tmp/tiny4.model" 2 tiny4-pp2-adam ddp --pp 2 --micro-batches 2 --optimizer adam --batch 4 \
  && compare tiny4-pp2-adam tiny4-dp1-adam 1e-5
train "$tmp/tiny4.model" 4 tiny4-pp2-dp2-sgd ddp --pp 2 --micro-batches 4 --optimizer sgd --batch 4 \
  && compare tiny4-pp2-dp2-sgd tiny4-dp2-sgd 5e-6
train "$tmp/t44.model" 1 t44-dp1-adam ddp --optimizer adam --batch 8
for pp in 3:2 4:8; do
  train "$tmp/t44.model" "${pp%%:*}" "t44-pp${pp%%:*}-adam" ddp --pp "${pp%%:*}" --micro-batches "${pp#*:}" --optimizer adam \
    --batch 8 && compare "t44-pp${pp%%:*}-adam" t44-dp1-adam 1e-5
done
if grep -q '"pp" : 2' "$tmp/tiny4-pp2-dp2-sgd.json" && grep -q '"replicas" : 2' "$tmp/tiny4-pp2-dp2-sgd.json" \
   && grep -q '"micro_batches" : 4' "$tmp/tiny4-pp2-dp2-sgd.json"; then ok
else ko "pp 2 x dp 2: $(head -c 300 "$tmp/tiny4-pp2-dp2-sgd.json")"; fi

# the report: FSDP over 2 ranks on the odd MLP gathers its padded units
# before forward, 1074 + 660 + 162 = 1896 parameters (7584 bytes), again
# before backward but the last unit (1734, 6936 bytes), and
# reduce-scatters all three (7584 bytes); each unit's times are there
cbytes () { tr -d '\n ' <"$1" | sed -n "s/.*\"$2\":{\"step_median_s\":[-0-9.e+]*,\"bytes_per_step\":\([-0-9.e+]*\).*/\1/p"; }
j="$tmp/odd-fsdp2.json"
if awk -v a="$(cbytes "$j" all-gather)" -v b="$(cbytes "$j" all-gather-backward)" -v r="$(cbytes "$j" reduce-scatter)" \
     'BEGIN { exit !(a == 7584 && b == 6936 && r == 7584) }'; then ok
else ko "fsdp collectives: $(tr -d '\n ' <"$j" | sed -n 's/.*"collectives":\(.*\)/\1/p')"; fi
if "$bin" run --model "$tmp/odd.model" --gpus 4 --steps 3 --warmup 1 --strategy hsdp --shard-group 2 \
     --trace "$tmp/h.json" >"$tmp/h" 2>"$tmp/err"; then ok; else ko "hsdp table: $(tail -2 "$tmp/err")"; fi
if grep -q "strategy        hsdp (HYBRID_SHARD): 3 units (the layers), each sharded over 2 ranks, replicated" "$tmp/h" \
   && grep -q "^  reduce-scatter  gradients" "$tmp/h" && grep -q "^  all-reduce      gradient shards" "$tmp/h" \
   && grep -q "replicas of each shard identical after every step" "$tmp/h" && ! grep -q "emulated waits" "$tmp/h"; then ok
else ko "hsdp table: $(cat "$tmp/h")"; fi
# the trace in the simulator's shape: its streams and labels (sim/strategy-fsdp.c)
if grep -q '"shard group"' "$tmp/h.json" && grep -q '"replicate group"' "$tmp/h.json" \
   && grep -q '"all-gather unit 1 (backward)"' "$tmp/h.json" && grep -q '"reduce-scatter unit 0"' "$tmp/h.json" \
   && grep -q '"all-reduce unit 0 shard"' "$tmp/h.json"; then ok; else ko "hsdp trace"; fi

# emulation: 8 replicas of the zoo MLP, waits for compute, the real
# units gathered and reduce-scattered
for st in zero2 fsdp; do
  if "$bin" run --emulate --gpus 8 --steps 3 --warmup 1 --strategy "$st" >"$tmp/e" 2>"$tmp/err" \
     && grep -q "emulated waits" "$tmp/e" && grep -q "^  reduce-scatter  gradients: 16.8 MB" "$tmp/e"; then ok
  else ko "emulated $st: $(tail -2 "$tmp/err") $(cat "$tmp/e")"; fi
done

# emulated nodes (root): HSDP's shard group is a node by default, the
# shards all-reduced across the two nodes' link
if [ "$(id -u)" -eq 0 ] && ip netns add dpsprobe$$ 2>/dev/null; then
  ip netns del dpsprobe$$
  if "$bin" run --model "$tmp/odd.model" --gpus 4 --nodes 2 --steps 3 --warmup 1 --strategy hsdp >"$tmp/n" 2>"$tmp/err" \
     && grep -q "each sharded over 2 ranks, replicated across the groups" "$tmp/n"; then ok
  else ko "hsdp on emulated nodes: $(tail -2 "$tmp/err")"; fi
else
  echo "run-strategies: emulated nodes skipped (needs root and network namespaces)"
fi

# refused flags: exit 2, one line naming the flag, before any process
# starts (with no mpirun on the PATH the run could not start one, and the
# message is still the flag's)
mkdir -p "$tmp/nompi"
refused () {
  flag=$1
  shift
  PATH="$tmp/nompi" "$bin" run "$@" >/dev/null 2>"$tmp/err"
  st=$?
  if [ "$st" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$flag" "$tmp/err"; then ok
  else ko "run $*: exit $st, $(cat "$tmp/err")"; fi
}
refused "--strategy: 'zero4'" --strategy zero4
refused "--shard-group: 3 ranks a group does not divide 4" --gpus 4 --strategy hsdp --shard-group 3
refused "--shard-group: 0 is out of range (1 to 131072)" --gpus 4 --strategy hsdp --shard-group 0
refused "--shard-group: only with --strategy hsdp" --gpus 4 --strategy fsdp --shard-group 2
refused "--check-params" --emulate --check-params
refused "--tp: 3 ranks a group do not divide --gpus 4" --gpus 4 --tp 3
refused "--pp: 3 stages do not divide --gpus 4" --gpus 4 --pp 3 --model "$tmp/tiny4.model"
refused "--pp: more stages than the model's blocks" --gpus 4 --pp 4 --model "$tmp/tiny4.model"
refused "--micro-batches: 3 do not divide --batch 4" --gpus 2 --pp 2 --micro-batches 3 --batch 4 --model "$tmp/tiny4.model"
refused "--micro-batches: only with --pp" --gpus 2 --micro-batches 2
refused "--tp and --pp: one at a time" --gpus 4 --tp 2 --pp 2 --model "$tmp/tiny4.model"
refused "--tp: the data parallelism over the groups is ddp, not fsdp" --gpus 2 --tp 2 --strategy fsdp
refused "--tp: real compute only (not with --emulate" --gpus 2 --tp 2 --emulate
refused "--tp: MLP 1024x4: not a GPT-2 stack" --gpus 2 --tp 2
refused "--tp: 2 does not divide GPT-2 tiny's 3 attention heads" --gpus 2 --tp 2 --model "$tmp/tiny.model"
# PyTorch's names are the same strategies
if "$bin" run --model "$tmp/odd.model" --gpus 2 --steps 2 --warmup 1 --strategy FULL_SHARD --format json >"$tmp/pt.json" \
     2>"$tmp/err" && grep -q '"strategy" : "fsdp"' "$tmp/pt.json"; then ok; else ko "FULL_SHARD: $(tail -1 "$tmp/err")"; fi

finish run-strategies

#!/bin/sh
# The sharded strategies on GPUs (dpscale run --backend gpu --strategy:
# NCCL all-gathers and reduce-scatters, HSDP's groups split with
# ncclCommSplit) train the same model as DDP, as test-run-strategies.sh
# checks on CPUs.  One replica per GPU present (at most 4); skipped (77)
# where there is no GPU replica or no GPU.
# Usage: test-run-strategies-gpu.sh DPSCALE_BINARY PARAMS_DIFF_BINARY
set -u
bin=$1
diff=$2
. "$(dirname "$0")/cli-lib.sh"

if ! "$bin" run --backend gpu --gpus 1 --steps 1 --warmup 0 --format json >"$tmp/probe.json" 2>"$tmp/err"; then
  echo "run-strategies-gpu: skipped: $(cat "$tmp/err")"
  exit 77
fi
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$n" -ge 1 ] 2>/dev/null || n=1
[ "$n" -gt 4 ] && n=4
printf '[model]\nname = GPT-2 tiny\narchitecture = gpt2\nlayers = 2\nhidden = 18\nheads = 3\nffn = 40\nvocab = 37\nseq = 8\n' \
  >"$tmp/tiny.model"

train () {
  t_name=$1 t_strategy=$2
  shift 2
  if "$bin" run --backend gpu --model "$tmp/tiny.model" --gpus "$n" --batch 4 --steps 5 --warmup 1 \
       --strategy "$t_strategy" --save-params "$tmp/$t_name.bin" --format json "$@" >"$tmp/$t_name.json" 2>"$tmp/err"
  then ok; else ko "$t_name: $(tail -2 "$tmp/err")"; return 1; fi
}

# On 1 or 2 GPUs every sum over replicas is of at most two numbers (a + b
# is b + a exactly) and the optimizer updates each element alone: the
# parameters are DDP's bit for bit.  On 3 or 4, NCCL's reduce-scatter and
# all-reduce add in other orders: within 1e-5 of the largest parameter, the
# CPU test's bound for Adam (tests/test-run-strategies.sh says why).
tol=0
[ "$n" -gt 2 ] && tol=1e-5
train ddp ddp || finish run-strategies-gpu
sg=1
[ "$n" -ge 2 ] && sg=$((n / 2))
for st in zero1 zero2 fsdp hsdp; do
  extra=
  [ "$st" = hsdp ] && extra="--shard-group $sg"
  # shellcheck disable=SC2086
  train "$st" "$st" $extra || continue
  if out=$("$diff" "$tmp/$st.bin" "$tmp/ddp.bin" 2>"$tmp/err"); then
    rel=$(echo "$out" | awk '{ print $4 }')
    echo "run-strategies-gpu: $st against ddp on $n GPUs: $out (count, max |diff|, max |p|, relative)"
    if awk "BEGIN { exit !($rel <= $tol) }"; then ok; else ko "$st on $n GPUs: relative difference $rel over $tol"; fi
  else ko "$st: $(cat "$tmp/err")"; fi
done
if grep -q '"reduce-scatter"' "$tmp/fsdp.json" && grep -q '"all-gather"' "$tmp/fsdp.json"; then ok
else ko "fsdp on GPUs: no collectives reported"; fi
# tensor parallelism on GPUs (NCCL on the compute stream, a group of 2
# GPUs; needs 2 or more): the whole parameters against DDP on as many
# GPUs as replicas, within the CPU test's bound for Adam (1e-5: the
# partial sums add in another order)
if [ "$n" -ge 2 ]; then
  printf '[model]\nname = GPT-2 tiny4\narchitecture = gpt2\nlayers = 2\nhidden = 16\nheads = 4\nffn = 40\nvocab = 37\nseq = 8\n' \
    >"$tmp/tiny4.model"
  dp=$((n / 2))
  if "$bin" run --backend gpu --model "$tmp/tiny4.model" --gpus "$dp" --batch 4 --steps 5 --warmup 1 \
       --save-params "$tmp/tp-base.bin" >/dev/null 2>"$tmp/err" \
     && "$bin" run --backend gpu --model "$tmp/tiny4.model" --gpus $((2 * dp)) --tp 2 --batch 4 --steps 5 --warmup 1 \
       --save-params "$tmp/tp2.bin" >/dev/null 2>>"$tmp/err" && out=$("$diff" "$tmp/tp2.bin" "$tmp/tp-base.bin"); then
    rel=$(echo "$out" | awk '{ print $4 }')
    echo "run-strategies-gpu: tp 2 x dp $dp against dp $dp: $out (count, max |diff|, max |p|, relative)"
    if awk "BEGIN { exit !($rel <= 1e-5) }"; then ok; else ko "tp 2 on GPUs: relative difference $rel over 1e-5"; fi
  else ko "tp 2 on GPUs: $(tail -2 "$tmp/err")"; fi
else
  echo "run-strategies-gpu: tensor parallelism skipped (one GPU: a group needs 2)"
fi
# emulated compute on the GPU's clock, real NCCL collectives
if "$bin" run --backend gpu --emulate --gpus "$n" --steps 3 --warmup 1 --strategy fsdp >"$tmp/e" 2>"$tmp/err" \
   && grep -q "emulated waits" "$tmp/e"; then ok; else ko "emulated fsdp on GPUs: $(tail -2 "$tmp/err")"; fi

finish run-strategies-gpu

#!/bin/sh
# The whole loop in CI at small scale: calibrate, run and predict the real
# CPU backend at 1, 2 and 4 replicas (few steps); files and plots produced;
# the hold-out rule.  Usage: test-validate-cli.sh DPSCALE_BINARY
set -u
bin=$1
. "$(dirname "$0")/cli-lib.sh"

if "$bin" validate --quick --gpus 1,2,4 --steps 6 --warmup 1 --batch 16 -o "$tmp/v" >"$tmp/out" 2>"$tmp/err"; then ok
else ko "validate: $(tail -3 "$tmp/err")"; fi
for f in v.csv v.png v.svg v-breakdown.png v-breakdown.svg v-timeline.png v-timeline.svg v-timeline.csv v.calib v-measured-trace.json v-predicted-trace.json; do
  if [ -s "$tmp/$f" ]; then ok; else ko "validate wrote no $f"; fi
done
if head -c 8 "$tmp/v.png" | grep -q PNG && grep -q "<svg" "$tmp/v.svg"; then ok; else ko "picture formats"; fi
# one row per replica count, with the error column
rows=$(grep -c '^[0-9]' "$tmp/v.csv")
if [ "$rows" -eq 3 ] && head -1 "$tmp/v.csv" | grep -q 'error_pct'; then ok; else ko "$rows rows"; fi
if grep -q "mean absolute error" "$tmp/out" && grep -q "inside the predicted interval" "$tmp/out"; then ok; else ko "summary line"; fi
# the profile written holds no step times, and reused it passes the rule
# (and --format json prints its rows and scores for a program)
if "$bin" validate --calibration "$tmp/v.calib" --gpus 1,2 --steps 4 --warmup 1 --batch 16 -o "$tmp/w" --format json \
     >"$tmp/w.json" 2>/dev/null; then ok; else ko "reusing the profile"; fi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rows"]
assert [x["replicas"] for x in r]==[1,2] and all(x["ok"] and x["meas_median_s"]>0 and x["pred_mean_s"]>0 for x in r)
assert d["scored"]==2 and d["mean_abs_error_pct"]>=0 and d["prefix"].endswith("/w")' "$tmp/w.json"
then ok; else ko "validate --format json: $(head -c 300 "$tmp/w.json")"; fi
# sharded: the runs train with FSDP (each layer a unit) and the predictions
# take the same strategy: both traces hold the units' all-gathers and
# reduce-scatters (a DDP step has none of either)
# (--format csv: PREFIX.csv's very rows on standard output)
if "$bin" validate --calibration "$tmp/v.calib" --strategy fsdp --gpus 2 --steps 4 --warmup 1 --batch 16 \
     -o "$tmp/f" --format csv >"$tmp/fout" 2>"$tmp/err"; then ok; else ko "validate --strategy fsdp: $(tail -2 "$tmp/err")"; fi
if cmp -s "$tmp/fout" "$tmp/f.csv" && [ "$(grep -c '^[0-9]' "$tmp/f.csv")" -eq 1 ] \
   && grep -q '"all-gather' "$tmp/f-predicted-trace.json" && grep -q '"reduce-scatter' "$tmp/f-predicted-trace.json" \
   && grep -q '"all-gather unit' "$tmp/f-measured-trace.json" && ! grep -q '"all-gather' "$tmp/w-predicted-trace.json"
then ok; else ko "validate --strategy fsdp: rows or traces"; fi
# tensor parallelism, run and predicted: a GPT-2 stack of 2 blocks (hidden
# 16, 4 heads) on 2 ranks, one group of 2 (one replica); the counts are
# ranks, each a row, the table says so; a count the group does not divide
# and --tp with --emulate are refused (a few seconds: the model is tiny)
printf '[model]\nname = GPT-2 tiny4\narchitecture = gpt2\nlayers = 2\nhidden = 16\nheads = 4\nffn = 40\nvocab = 37\nseq = 8\n' \
  >"$tmp/tiny4.model"
if "$bin" validate --model "$tmp/tiny4.model" --tp 2 --gpus 2 --batch 4 --steps 6 --warmup 1 --quick -o "$tmp/t" \
     >"$tmp/tout" 2>"$tmp/err" && grep -q "^tensor parallel groups of 2 consecutive ranks" "$tmp/tout" \
   && grep -q "^   ranks  measured" "$tmp/tout" && [ "$(grep -c '^2,' "$tmp/t.csv")" -eq 1 ]; then ok
else ko "validate --tp 2: $(tail -2 "$tmp/err") $(cat "$tmp/tout")"; fi
# the same stack in a pipeline of 2 stages, 1F1B over 2 micro-batches of 2
if "$bin" validate --model "$tmp/tiny4.model" --pp 2 --micro-batches 2 --gpus 2 --batch 4 --steps 6 --warmup 1 \
     --calibration "$tmp/t.calib" -o "$tmp/p" >"$tmp/pout" 2>"$tmp/err" \
   && grep -q "^pipelines of 2 stages, 1F1B over 2 micro-batches" "$tmp/pout" && [ "$(grep -c '^2,' "$tmp/p.csv")" -eq 1 ]; then ok
else ko "validate --pp 2: $(tail -2 "$tmp/err") $(cat "$tmp/pout")"; fi
if "$bin" validate --pp 2 --micro-batches 3 --batch 4 2>"$tmp/err"; then ko "3 micro-batches of 4 accepted"; else
  grep -q -- "--micro-batches: 3 do not divide --batch 4" "$tmp/err" && ok || ko "micro 3: $(cat "$tmp/err")"; fi
if "$bin" validate --tp 2 --gpus 2,3 2>"$tmp/err"; then ko "--tp 2 over 3 ranks accepted"; else
  grep -q -- "--gpus: 3 ranks are not groups of --tp 2" "$tmp/err" && ok || ko "tp 2 of 3: $(cat "$tmp/err")"; fi
if "$bin" validate --tp 2 --emulate 2>"$tmp/err"; then ko "--tp with --emulate accepted"; else
  grep -q -- "--tp: real compute" "$tmp/err" && ok || ko "tp emulate: $(cat "$tmp/err")"; fi
if "$bin" validate --strategy zero9 2>"$tmp/err"; then ko "zero9 accepted"; else
  grep -q "\-\-strategy: 'zero9' is not" "$tmp/err" && ok || ko "zero9: $(cat "$tmp/err")"; fi
if "$bin" validate --strategy fsdp --shard-group 2 2>"$tmp/err"; then ko "--shard-group without hsdp accepted"; else
  grep -q "\-\-shard-group: only with --strategy hsdp" "$tmp/err" && ok || ko "shard-group: $(cat "$tmp/err")"; fi
if "$bin" validate --strategy hsdp --shard-group 2 --gpus 2,3 2>"$tmp/err"; then ko "--shard-group 2 of 3 accepted"; else
  grep -q "\-\-shard-group: 2 does not divide --gpus 3" "$tmp/err" && ok || ko "shard-group 3: $(cat "$tmp/err")"; fi

# the hold-out rule: a profile with step times of a run is refused
cp "$tmp/v.calib" "$tmp/leak.calib"
printf '\n[run.steps]\nstep_s=0.01;0.02\n' >>"$tmp/leak.calib"
if "$bin" validate --calibration "$tmp/leak.calib" --gpus 1,2 2>"$tmp/err"; then ko "leaky profile accepted"; else
  grep -q "step times of a training run" "$tmp/err" && ok || ko "rule: $(cat "$tmp/err")"; fi
# more replicas than the profile was calibrated for
if "$bin" validate --calibration "$tmp/v.calib" --gpus 1,8 2>"$tmp/err"; then ko "8 replicas on a 4-rank profile"; else
  grep -q "calibrated up to 4" "$tmp/err" && ok || ko "limit: $(cat "$tmp/err")"; fi

# the GPU backend: where a GPU is present, one replica per GPU (here: 1)
# calibrated by the GPU replica's own layer times, run and predicted; a
# single replica has no collective, so the prediction is the sum of the
# calibrated layers and the error small (within 25%); elsewhere one line
if "$bin" validate --backend gpu --gpus 1 --quick --steps 8 --warmup 2 --batch 16 -o "$tmp/g" >"$tmp/gout" 2>"$tmp/err"; then
  e=$(awk -F, 'NR == 2 { print ($10 < 0 ? -$10 : $10) }' "$tmp/g.csv")
  if [ -n "$e" ] && awk "BEGIN { exit !($e < 25) }" && grep -q "real GPU training" "$tmp/gout"; then ok; else ko "gpu validate: error '$e'"; fi
else
  if [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "backend gpu: " "$tmp/err"; then ok; echo "validate-cli: no GPU: $(cat "$tmp/err")"
  else ko "gpu validate without a GPU: $(cat "$tmp/err")"; fi
fi
if "$bin" validate --backend tpu 2>"$tmp/err"; then ko "tpu accepted"; else grep -q "is not cpu or gpu" "$tmp/err" && ok || ko "tpu: $(cat "$tmp/err")"; fi
if "$bin" validate --backend gpu --nodes 2 2>"$tmp/err"; then ko "gpu over emulated nodes accepted"; else
  grep -q -- "--nodes\|--backend gpu" "$tmp/err" && ok || ko "gpu nodes: $(cat "$tmp/err")"; fi

# over emulated nodes (root: namespaces, tc): 2 and 4 replicas on 2 nodes
if [ "$(id -u)" -eq 0 ] && ip netns add dpsprobe$$ 2>/dev/null; then
  ip netns del dpsprobe$$
  if "$bin" validate --emulate --nodes 2 --link-gbps 10 --gpus 2,4 --steps 4 --warmup 1 --quick -o "$tmp/n" \
       >"$tmp/nout" 2>"$tmp/err"; then ok; else ko "validate --nodes: $(tail -2 "$tmp/err")"; fi
  if grep -q "over 2 emulated nodes" "$tmp/nout" && [ "$(grep -c '^[0-9]' "$tmp/n.csv")" -eq 2 ]; then ok; else ko "validate --nodes output"; fi
  if [ -z "$(leftovers)" ]; then ok; else ko "namespaces left behind: $(leftovers | tr '\n' ' ')"; fi
else
  echo "validate-cli: emulated nodes skipped (needs root and network namespaces)"
fi

finish validate-cli

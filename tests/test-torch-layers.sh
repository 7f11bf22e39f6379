#!/bin/sh
# calibrate/torch-layers.py, the bridge from a PyTorch model to a per-layer
# file for --model, on the two small models of tests/data/torch_models.py
# (on the CPU, one thread; Debian's python3-torch).  Skipped (77) where no
# python3 can import torch (DPS_PYTHON: the only interpreter to try).
# Usage: test-torch-layers.sh DPSCALE_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli-lib.sh"

py=""
for p in ${DPS_PYTHON:-python3 /usr/bin/python3}; do
  if "$p" -c 'import torch' >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || { echo "torch-layers: no python3 here imports torch (Debian: apt-get install python3-torch); skipped"; exit 77; }
script=$src/calibrate/torch-layers.py
fix=$src/tests/data/torch_models.py

# PyTorch's own count: sum(p.numel()) and len(list(parameters())) (a tied
# weight once).  By hand: the GPT-like model is a positional table 64x128
# (8,192), the token embedding 512x128 (65,536), 2 blocks of 198,272 (two
# LayerNorms 512, qkv 128x384 + 384, out 128x128 + 128, MLP 128x512 + 512
# and 512x128 + 128) and ln_f 256, the LM head tied to the embedding:
# 470,528 in 28 tensors; the CNN three 3x3 convolutions 3->16->32->64
# (448 + 4,640 + 18,496) with BatchNorms (32 + 64 + 128) and a 64->10
# linear (650): 24,458 in 14 tensors.
torch_count () {
  "$py" -c "import importlib.util as u, torch; s = u.spec_from_file_location('m', '$fix'); m = u.module_from_spec(s)
s.loader.exec_module(m); net = getattr(m, '$1')(); ps = list(net.parameters())
print(sum(p.numel() for p in ps), len(ps))"
}
# the file's own: params summed and tensors listed over the rows not tied to
# an earlier row; the per-layer times summed; the step it timed apart
csv_params () { awk -F, '/^#/ || /^layer,/ { next } $5 == "" { s += $2 } END { print s }' "$1"; }
csv_tensors () { awk -F, '/^#/ || /^layer,/ { next } $5 == "" && $3 != "" { s += split($3, a, ";") } END { print s }' "$1"; }
csv_time () { awk -F, '/^#/ || /^layer,/ { next } { s += $6 + $7 } END { print s }' "$1"; }
csv_step () { sed -n 's/^# step_ms: \([0-9.]*\) .*/\1/p' "$1"; }
csv_act () { awk -F, '/^#/ || /^layer,/ { next } { s += $4 } END { printf "%.0f\n", s }' "$1"; }

for m in "gpt 470528 28 --seq 64" "cnn 24458 14 --input-shape 3x32x32"; do
  set -- $m
  name=$1 want_p=$2 want_t=$3
  shift 3
  f=$tmp/$name.csv
  # a few steps on one thread, timed by the process's CPU clock: the other
  # work on a shared machine weighs little on it
  run () { "$py" "$script" "$fix:$name" "$@" --batch 8 --steps 8 --warmup 1 --threads 1 --clock cpu -o "$f" 2>"$tmp/err"; }
  if run "$@"; then ok; else ko "$name: $(cat "$tmp/err")"; continue; fi
  count=$(torch_count "$name")
  if [ "$count" = "$want_p $want_t" ]; then ok; else ko "$name: PyTorch counts '$count', the comment above says '$want_p $want_t'"; fi
  if [ "$(csv_params "$f") $(csv_tensors "$f")" = "$count" ]; then ok
  else ko "$name: the file holds $(csv_params "$f") parameters in $(csv_tensors "$f") tensors, PyTorch $count"; fi
  if grep -q '^# device: cpu$' "$f" && grep -q '^# dtype: float32$' "$f" && grep -q '^# batch: 8$' "$f"; then ok
  else ko "$name: device, dtype or batch comment missing: $(grep '^#' "$f")"; fi
  # times measured on CPU cores are not taken for a GPU's (the default
  # topology's H100): the file's kernels are timed there instead, and the
  # report says so; without its kernels column the file is refused, naming
  # it.  dpscale reads the file to PyTorch's totals.
  if "$bin" predict --model "$f" 2>"$tmp/err" | grep -q "timed on the H100 SXM5 from the kernels $f lists"; then ok
  else ko "$name: CPU-measured file on an H100: $(cat "$tmp/err")"; fi
  awk -F, 'BEGIN { OFS = "," } !/^#/ { NF = 7 } { print }' "$f" >"$tmp/nokern.csv"
  if "$bin" predict --model "$tmp/nokern.csv" >/dev/null 2>"$tmp/err"; then ko "$name: CPU times taken for an H100"
  else grep -q "$tmp/nokern.csv: times measured on cpu" "$tmp/err" && ok || ko "$name: refusal: $(cat "$tmp/err")"; fi
  grep -v '^# device:' "$f" >"$tmp/nodev.csv"
  if "$bin" predict --model "$tmp/nodev.csv" --dtype fp32 --batch 8 --format json >"$tmp/p.json" 2>"$tmp/err"; then ok; else ko "$name: predict: $(cat "$tmp/err")"; fi
  if [ "$(num parameters "$tmp/p.json")" = "$want_p" ] \
     && "$bin" predict --model "$tmp/nodev.csv" 2>&1 | grep -q "parameters in $want_t tensors"; then ok
  else ko "$name: dpscale reads $(num parameters "$tmp/p.json") parameters"; fi
  # the memory check counts the activations: at the file's batch and dtype
  # (8, fp32) exactly the bytes the file lists, and more than none
  act=$(csv_act "$f")
  pa=$(sed -n '/memory_bytes/,/}/p' "$tmp/p.json" | sed -n 's/.*"activations" : \([0-9.e+]*\).*/\1/p')
  if awk "BEGIN { exit !($act > 0 && $pa == $act) }"; then ok; else ko "$name: activations: the file $act B, predict $pa B"; fi
  # the per-layer times sum to the step timed without hooks within 10%
  # (again up to twice: a few steps on a busy machine can stray)
  for try in 1 2 3; do
    t=$(csv_time "$f"); s=$(csv_step "$f")
    awk "BEGIN { exit !($t > 0.9 * $s && $t < 1.1 * $s) }" && break
    echo "torch-layers: $name: layers $t ms against the step $s ms (try $try)" >&2
    [ $try -lt 3 ] && run "$@"
  done
  if awk "BEGIN { exit !($t > 0.9 * $s && $t < 1.1 * $s) }"; then ok; else ko "$name: layers sum to $t ms, the step $s ms"; fi
  echo "torch-layers: $name: $(csv_params "$f") parameters in $(csv_tensors "$f") tensors, layers $t ms against the step $s ms"
done

# The GPT-like model's kernels against the zoo's GPT-2 generator at the
# same shapes (2 blocks, 128 wide, 4 heads, vocabulary 512, 64 tokens):
# the FLOPs a sample are the generator's exactly, its GEMMs 2 x 64 x 12 x
# 128^2 and attention's 4 x 64^2 x 128 a block and the head's 2 x 64 x 128
# x 512: 2 x 27,262,976 + 8,388,608 = 62,914,560; and the compute the two
# give on an H100 agree within 15% (the issue's bar).  At batch 512 the
# GPU, not the host's launches, bounds both: the module launches kernels
# the generator's block does not (its mask, the copies matmul makes, the
# test's loss), 21 a block against 16, which at the file's batch of 8 are
# most of the step (measured here: +17% at 8, +4% at 512).
flops=$(awk -F, '/^#/ || /^layer,/ { next } { s += $8 } END { printf "%.0f\n", s }' "$tmp/gpt.csv")
if [ "$flops" = 62914560 ]; then ok; else ko "gpt: the file's FLOPs a sample $flops, the generator's 62914560"; fi
printf '[model]\nname = TinyGPT\narchitecture = gpt2\nlayers = 2\nhidden = 128\nheads = 4\nvocab = 512\nseq = 64\n' >"$tmp/tiny.model"
"$bin" predict --model "$tmp/gpt.csv" --gpus 1 --batch 512 --format json >"$tmp/k.json" 2>"$tmp/err" || ko "gpt: predict: $(cat "$tmp/err")"
"$bin" predict --model "$tmp/tiny.model" --gpus 1 --batch 512 --format json >"$tmp/z.json" 2>"$tmp/err" || ko "tiny.model: $(cat "$tmp/err")"
kc=$(num compute_s "$tmp/k.json"); zc=$(num compute_s "$tmp/z.json")
if awk "BEGIN { exit !($kc > 0.85 * $zc && $kc < 1.15 * $zc) }"; then ok
else ko "gpt: compute on an H100 from the kernels $kc s, from the generator $zc s"; fi
echo "torch-layers: gpt on an H100 at batch 512: $kc s from its kernels, $zc s from the zoo's generator"
if [ "$(num tokens_per_s "$tmp/k.json")" != 0 ]; then ok; else ko "gpt: no tokens per second from '# input: 64 tokens'"; fi

# the GPT-like model's LM head shares the token embedding's weight: its row
# says so and its 65,536 parameters are not counted twice (above)
if grep -q '^head,65536,512x128,[0-9]*,wte,' "$tmp/gpt.csv"; then ok; else ko "gpt: head row: $(grep '^head' "$tmp/gpt.csv")"; fi
# the positional table is the model's own parameter: a row of its own, first
if [ "$(grep -v '^#' "$tmp/gpt.csv" | sed -n 2p | cut -d, -f1-3)" = "(model),8192,1x64x128" ]; then ok; else ko "gpt: no (model) row first"; fi
# --layers top: a row per block, the same totals
if "$py" "$script" "$fix:gpt" --seq 64 --batch 2 --steps 1 --warmup 0 --threads 1 --layers top -o "$tmp/top.csv" 2>"$tmp/err" \
   && [ "$(grep -c '^blocks\.[01],198272,' "$tmp/top.csv")" = 2 ] \
   && [ "$(csv_params "$tmp/top.csv") $(csv_tensors "$tmp/top.csv")" = "470528 28" ]; then ok
else ko "--layers top: $(cat "$tmp/err") $(grep -v '^#' "$tmp/top.csv" 2>/dev/null)"; fi

# --hf-config through a stand-in transformers package (AutoConfig reads the
# JSON, AutoModelForCausalLM builds the fixture's GPT at those sizes): the
# sequence defaults to max_position_embeddings (32) and the token ids stay
# below vocab_size.  1 block of 64 wide, 2 heads, vocabulary 256: positions
# 32x64 (2,048) + embedding 256x64 (16,384) + the block (2 x 128 + 64x192 +
# 192 + 64x64 + 64 + 64x256 + 256 + 256x64 + 64 = 49,984) + ln_f 128 =
# 68,544 in 16 tensors.  Without transformers, --hf-config is refused.
mkdir -p "$tmp/hf/transformers"
cat >"$tmp/hf/transformers/__init__.py" <<PY
import importlib.util, json, types
class AutoConfig:
    @staticmethod
    def from_pretrained(path):
        with open(path) as f:
            return types.SimpleNamespace(**json.load(f))
class AutoModelForCausalLM:
    @staticmethod
    def from_config(c):
        s = importlib.util.spec_from_file_location("m", "$fix"); m = importlib.util.module_from_spec(s)
        s.loader.exec_module(m)
        return m.TinyGPT(vocab=c.vocab_size, seq=c.max_position_embeddings, d=c.n_embd, layers=c.n_layer, heads=c.n_head)
AutoModel = AutoModelForCausalLM
PY
echo '{"model_type": "gpt2", "vocab_size": 256, "max_position_embeddings": 32, "n_embd": 64, "n_layer": 1, "n_head": 2}' >"$tmp/hf/config.json"
if PYTHONPATH=$tmp/hf "$py" "$script" --hf-config "$tmp/hf/config.json" --batch 2 --steps 1 --warmup 0 --threads 1 -o "$tmp/hf.csv" 2>"$tmp/err" \
   && grep -q '^# input: 32 tokens' "$tmp/hf.csv" \
   && [ "$(csv_params "$tmp/hf.csv") $(csv_tensors "$tmp/hf.csv")" = "68544 16" ]; then ok
else ko "--hf-config: $(cat "$tmp/err") $(grep -v '^#' "$tmp/hf.csv" 2>/dev/null | head -3)"; fi
if ! "$py" -c 'import transformers' 2>/dev/null; then
  if "$py" "$script" --hf-config "$tmp/hf/config.json" 2>"$tmp/err"; then ko "--hf-config without transformers accepted"
  else grep -q 'transformers is not importable' "$tmp/err" && ok || ko "--hf-config: $(cat "$tmp/err")"; fi
fi

# bad input: one line naming what is wrong, exit 2, nothing written
bad () {
  want=$1; shift
  "$py" "$script" "$@" -o "$tmp/bad.csv" 2>"$tmp/err"
  rc=$?
  if [ $rc -eq 2 ] && grep -q -- "$want" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/bad.csv" ]; then ok
  else ko "'$*': exit $rc, '$(cat "$tmp/err")' lacks '$want'"; fi
}
bad "one of them" "$fix:gpt" --batch 2
bad "has no function nope" "$fix:nope" --seq 8
bad "no file" "$tmp/none.py:gpt" --seq 8
bad "expected MODULE:FUNCTION" gpt --seq 8
bad "is not a shape" "$fix:cnn" --input-shape 3xx32
bad "clock cpu" "$fix:cnn" --input-shape 3x32x32 --clock cpu
bad "batch: 0 is below 1" "$fix:cnn" --input-shape 3x32x32 --batch 0

finish torch-layers

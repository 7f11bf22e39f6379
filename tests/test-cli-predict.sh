#!/bin/sh
# dpscale predict, sweep and plot on the command line: models from every
# kind of file, CSV and JSON as they are read back, prices, pictures,
# attention and checkpointing, calibrated layer times.  Usage:
# test-cli-predict.sh DPSCALE_BINARY
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"

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

finish cli-predict

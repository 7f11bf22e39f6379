#!/bin/sh
# `dpscale validate --torch`: the shipped PyTorch DDP example
# (real/torch-ddp-example.py) run at 1 and 2 processes over gloo, its step
# times read from its 'dpscale-step' hook, and predicted from its own
# per-layer file (calibrate/torch-layers.py) and a gloo calibration of this
# machine.  Skipped (77) where no python3 imports torch.
# Expected: both counts measured and predicted, the largest again for the
# machine's own noise (noise_pct in the JSON), each error a number between
# -90% and +200% (a bar against a broken path, not an accuracy bar: on a
# shared 2-core machine the per-layer file itself can be timed 60% slow
# when a neighbour runs; the figures, 0-3% for one process, 13-32% for
# two, are in real/README.md); refused before any work, exit 2 in
# one line: --torch without --model, with --emulate; an MPI profile (the
# file's fault): exit 1; a script without the hook: exit 1, the hook named.
# Usage: test-validate-torch.sh DPSCALE_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli-lib.sh"

py=$(torch_python validate-torch) || exit 77
export DPS_PYTHON=$py
ex=$src/real/torch-ddp-example.py

"$py" "$src/calibrate/torch-layers.py" "$ex:build" --input-shape 1024 --batch 32 --threads 1 -o "$tmp/ex.csv" \
  2>"$tmp/err" && ok || ko "torch-layers on the example: $(tail -2 "$tmp/err")"
"$bin" validate --torch "$ex" --model "$tmp/ex.csv" --gpus 1,2 --quick --steps 8 --warmup 2 -o "$tmp/v" \
  --format json >"$tmp/v.out" 2>"$tmp/err"
st=$?
[ $st -le 1 ] && [ -s "$tmp/v.csv" ] && ok || ko "validate --torch: exit $st, $(tail -3 "$tmp/err")"
awk -F, 'NR > 1 { n++; if (!($2 > 0 && $5 > 0) || $10 == "nan" || $10 > 200 || $10 < -90) bad = 1 } END { exit bad || n != 2 }' \
  "$tmp/v.csv" && ok || ko "rows: $(cat "$tmp/v.csv")"
grep -qx 'backend=cpu-gloo' "$tmp/v.calib" && ok || ko "the calibration: $(grep backend "$tmp/v.calib")"
# the machine's own noise: the largest count run again, how far apart
noise=$(num noise_pct "$tmp/v.out")
[ -n "$noise" ] && awk "BEGIN { exit !($noise >= 0) }" && ok || ko "no noise_pct in: $(head -c 300 "$tmp/v.out")"

refused () {
  want=$1
  shift
  "$bin" validate "$@" >/dev/null 2>"$tmp/err"
  st=$?
  if [ $st -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$want" "$tmp/err"; then ok
  else ko "validate $*: exit $st, $(cat "$tmp/err")"; fi
}
refused "\-\-torch: a PyTorch DDP job on this machine's CPUs, with \-\-model" --torch "$ex"
refused "\-\-torch: a PyTorch DDP job" --torch "$ex" --model "$tmp/ex.csv" --emulate
sed 's/^backend=cpu-gloo$/backend=cpu-mpi/' "$tmp/v.calib" >"$tmp/mpi.calib"
"$bin" validate --torch "$ex" --model "$tmp/ex.csv" --gpus 1,2 --calibration "$tmp/mpi.calib" -o "$tmp/m" \
  >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "mpi.calib: a cpu-mpi profile; a PyTorch job on CPUs communicates through gloo" "$tmp/err" \
  && ok || ko "an MPI profile: exit $st, $(cat "$tmp/err")"
# a model without measured times, and a gloo profile for dpscale's own runs
refused "\-\-model mlp: no measured layer times" --torch "$ex" --model mlp --gpus 1
"$bin" validate --gpus 1,2 --calibration "$tmp/v.calib" -o "$tmp/g" >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "a cpu-gloo profile; dpscale's own replicas communicate through MPI" "$tmp/err" && ok \
  || ko "a gloo profile for dpscale's runs: exit $st, $(cat "$tmp/err")"
printf 'print("no hook")\n' >"$tmp/nohook.py"
"$bin" validate --torch "$tmp/nohook.py" --model "$tmp/ex.csv" --gpus 1 --calibration "$tmp/v.calib" -o "$tmp/n" \
  >/dev/null 2>"$tmp/err"
grep -q "printed no 'dpscale-step STEP SECONDS' line" "$tmp/err" && ok || ko "a script without the hook: $(cat "$tmp/err")"
finish validate-torch

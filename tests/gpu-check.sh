#!/bin/sh
# The GPU checks in one go, for a machine with an NVIDIA GPU, the CUDA
# toolkit and NCCL (and what tests/setup.sh installs): build, the GPU tests
# (which must pass, not skip), a real single-GPU run of the MLP (gradient
# identity) and of the GPT-2 stack, the GPU replica's layer times,
# validation on the GPUs present, and a quick GPU calibration.  Each step's
# output goes to OUT (default gpu-check/); a line per step says ok or
# FAILED.  Usage, from the repository root:
#
#   [OUT=dir] [BUILD=build-gpu] sh tests/gpu-check.sh
set -u
out=${OUT:-gpu-check}
build=${BUILD:-build-gpu}
mkdir -p "$out"
fails=0
step () {
  name=$1
  shift
  start=$(date +%s)
  if "$@" >"$out/$name.txt" 2>&1; then
    echo "gpu-check: $name ok ($(($(date +%s) - start)) s)"
  else
    echo "gpu-check: $name FAILED (exit $?), see $out/$name.txt:"
    tail -5 "$out/$name.txt" | sed 's/^/    /'
    fails=$((fails + 1))
  fi
}
dps="$build/dpscale"
step configure cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
step build cmake --build "$build" -j
step gpu-tests ctest --test-dir "$build" -R gpu --output-on-failure
if grep -q "Skipped\|Not Run" "$out/gpu-tests.txt" 2>/dev/null; then
  echo "gpu-check: gpu-tests were skipped: no GPU seen (nvidia-smi, the driver)"
  fails=$((fails + 1))
fi
step run-mlp "$dps" run --backend gpu --ranks 1 --steps 10 --warmup 2 --check-gradient --format json
step run-gpt2 "$dps" run --backend gpu --ranks 1 --model transformer-small --batch 8 --steps 10 --warmup 2 --optimizer adam
step time-layers "$dps" run --backend gpu --time-layers --model transformer-small --batch 8
step validate "$dps" validate --backend gpu --steps 20 -o "$out/validate"
step validate-gpt2 "$dps" validate --backend gpu --model transformer-small --batch 8 --steps 20 -o "$out/validate-gpt2"
step calibrate "$dps" calibrate --backend gpu --quick -o "$out/gpu.calib"
echo "gpu-check: $fails step(s) failed; outputs in $out/"
[ "$fails" -eq 0 ]

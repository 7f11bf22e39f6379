#!/bin/sh
# The GPU checks in one go, for a machine with an NVIDIA GPU, the CUDA
# toolkit and NCCL, and either what tests/setup.sh installs or the
# .gpu-bundle that tests/gpu-bundle.sh packs: build, the GPU tests
# (which must pass, not skip), a real single-GPU run of the MLP (gradient
# identity) and of the GPT-2 stack, the GPU replica's layer times, the
# sharded strategies (FSDP's run, every strategy against DDP's parameters,
# tensor parallelism against DDP's where 2 or more GPUs are present, its
# validation), validation on the GPUs present, and a quick GPU
# calibration.  Each step's
# output goes to OUT (default gpu-check/); a line per step says ok or
# FAILED.  Usage, from the repository root:
#
#   [OUT=dir] [BUILD=build-gpu] sh tests/gpu-check.sh
#
# On a lent device machine (at most 8 files come back), with .gpu-bundle
# carried:  sh tests/gpu-check.sh; tar -czf $OUT/gpu-check.tar.gz gpu-check
set -u
out=${OUT:-gpu-check}
build=${BUILD:-build-gpu}
mkdir -p "$out"
fails=0
step () {
  name=$1
  shift
  start=$(date +%s)
  "$@" >"$out/$name.txt" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "gpu-check: $name ok ($(($(date +%s) - start)) s)"
  else
    # 77: a GPU test that found no GPU, which here is a failure
    [ "$rc" -eq 77 ] && why="skipped: no GPU seen" || why="exit $rc"
    echo "gpu-check: $name FAILED ($why), see $out/$name.txt:"
    tail -5 "$out/$name.txt" | sed 's/^/    /'
    fails=$((fails + 1))
  fi
}
# A GPU machine without this project's packages or a network to fetch them
# (a lent one): what tests/gpu-bundle.sh packed here, unpacked where Debian
# puts it, never over a file the machine has (its folders are 755, as the
# machine's are), and the build made here (its paths name the tree it was
# made in: where this tree is elsewhere, a link from there)
prebuilt=0
if [ -f .gpu-bundle/deps.tar.gz ] && [ -f .gpu-bundle/build.tar.gz ]; then
  tar -C / --skip-old-files -xzf .gpu-bundle/deps.tar.gz && ldconfig
  src=$(cat .gpu-bundle/source-dir)
  if [ "$src" != "$(pwd -P)" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$(pwd -P)" "$src"; fi
  [ -x build-gpu/dpscale-train-gpu ] || tar -xzf .gpu-bundle/build.tar.gz
  build=build-gpu
  prebuilt=1
  echo "gpu-check: using .gpu-bundle (Debian runtime files, the build from $src)"
fi
# cuBLAS and NCCL wherever the machine keeps them (the toolkit, a Python wheel)
for lib in libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
  ldconfig -p | grep -q "$lib " && continue
  d=$(find /usr/local /usr/lib /opt -name "$lib" 2>/dev/null | head -n 1)
  [ -n "$d" ] && LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
done
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
DPSCALE_DATADIR=$(pwd)
export DPSCALE_DATADIR
dps="$build/dpscale"
if [ "$prebuilt" -eq 0 ]; then
  step configure cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  step build cmake --build "$build" -j
fi
# what the machine has: the GPU and driver, and where each library came from
step machine sh -c "nvidia-smi; echo LD_LIBRARY_PATH=\$LD_LIBRARY_PATH; ldd $build/dpscale-train-gpu; ldd $build/dpscale-gpu.so; ldd $build/dpscale"
# the GPU test programs (ctest's gpu and gpu-train), which must pass, not skip
step test-gpu "$build/tests/test-gpu"
step test-gpu-train "$build/tests/test-gpu-train"
step run-mlp "$dps" run --backend gpu --gpus 1 --steps 10 --warmup 2 --check-gradient --format json
step run-gpt2 "$dps" run --backend gpu --gpus 1 --model transformer-small --batch 8 --steps 10 --warmup 2 --optimizer adam
step time-layers "$dps" run --backend gpu --time-layers --model transformer-small --batch 8
# sharded data parallelism on the GPU replica: FSDP's gathers and
# reduce-scatters through NCCL, every strategy against DDP's parameters
# (one replica per GPU present), and its validation
step run-fsdp "$dps" run --backend gpu --gpus 1 --strategy fsdp --steps 10 --warmup 2 --check-params
step run-strategies sh tests/test-run-strategies-gpu.sh "$dps" "$build/tests/params-diff"
step validate "$dps" validate --backend gpu --steps 20 -o "$out/validate"
step validate-gpt2 "$dps" validate --backend gpu --model transformer-small --batch 8 --steps 20 -o "$out/validate-gpt2"
step validate-fsdp "$dps" validate --backend gpu --strategy fsdp --steps 20 -o "$out/validate-fsdp"
# calibration of all three collectives (ncclAllReduce, ncclAllGather,
# ncclReduceScatter, each result checked), in one process and through the
# MPI worker (one process a GPU)
step calibrate "$dps" calibrate --backend gpu --quick --collectives all-reduce,all-gather,reduce-scatter \
  -o "$out/gpu.calib"
step calibrate-mpi "$dps" calibrate --backend gpu --mpi --quick --collectives all-gather,reduce-scatter \
  -o "$out/gpu-mpi.calib"
echo "gpu-check: $fails step(s) failed; outputs in $out/"
[ "$fails" -eq 0 ]

#!/bin/sh
# Side by side: the benchmarks of two builds in one run, the previous first.
#
#   sh tests/bench/compare.sh OLD_BUILD NEW_BUILD
#
# OLD_BUILD and NEW_BUILD are build folders (cmake -B) of two commits,
# e.g. the previous commit built with
#   git worktree add /tmp/old HEAD~1 && cmake -S /tmp/old -B /tmp/old-build && \
#   cmake --build /tmp/old-build --target dpscale bench-ddp bench-engine
# Each line runs the same command with each build's binary; times are wall
# seconds (best of 3 for the commands, one run of each benchmark program).
set -u
old=$1 new=$2
best () {   # best wall time of 3 runs of a command, seconds; "refused" when it fails
  b=""
  for i in 1 2 3; do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || { printf refused; return; }; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  printf '%.3f' "$b"
}
row () {   # label, then the dpscale arguments
  label=$1; shift
  a=$(best "$old/dpscale" "$@"); b=$(best "$new/dpscale" "$@")
  printf '%-52s %10s %10s\n' "$label" "$a" "$b"
}
printf '%-52s %10s %10s\n' "dpscale command (wall s, best of 3)" "previous" "this"
row "start-up alone (--version)" --version
row "predict (GPT-2 XL, 64 H100)" predict
row "predict --gpus 1024" predict --gpus 1024
row "predict --gpus 65536" predict --gpus 65536
row "predict --gpus 131072" predict --gpus 131072
row "predict --gpus 1024 --jitter 0.03 (20 trials)" predict --gpus 1024 --jitter 0.03
row "collective --gpus 4096 (28 sizes)" collective --gpus 4096
row "collective --gpus 32768 (28 sizes)" collective --gpus 32768
row "sweep (11 points to 1024 GPUs)" sweep -o /tmp/dpscale-bench-sweep
row "predict llama2-70b, 16384 GPUs, tp 8 pp 8 (3D)" predict --model llama2-70b --gpus 16384 --tp 8 --pp 8 \
  --strategy zero1 --batch 1 --flash-attention
row "advise llama3-8b, 64 GPUs, batch 2" advise --model llama3-8b --gpus 64 --batch 2
row "advise llama2-70b, 1024 GPUs, batch 1" advise --model llama2-70b --gpus 1024 --batch 1
echo
for b in bench-ddp bench-engine; do
  for d in "$old" "$new"; do
    echo "== $b, $d"
    if [ -x "$d/tests/bench/$b" ]; then "$d/tests/bench/$b"; else echo "(not built)"; fi
  done
done

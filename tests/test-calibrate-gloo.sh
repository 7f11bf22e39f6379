#!/bin/sh
# `dpscale calibrate --backend gloo`: the collectives timed through
# torch.distributed's gloo (calibrate/gloo-worker.py), as PyTorch's DDP
# runs them on CPUs, into the same profile format.  Skipped (77) where no
# python3 imports torch (DPS_PYTHON: the only interpreter to try).
# Expected: a profile whose backend is cpu-gloo and library gloo (torch
# VERSION), one all-reduce point per size asked, every result checked by
# the worker, the contention probe's figures at 2 ranks (through gloo); a reduce-scatter and --gap-ms refused before any work (exit
# 2, one line); a python3 without torch refused in one line (exit 1) and
# nothing written.
# Usage: test-calibrate-gloo.sh DPSCALE_BINARY
set -u
bin=$1
. "$(dirname "$0")/cli-lib.sh"

py=$(torch_python calibrate-gloo) || exit 77

if DPS_PYTHON=$py "$bin" calibrate --backend gloo --quick --sizes 1K,64K,1M --gpus 2 -o "$tmp/g.calib" \
     >"$tmp/out" 2>"$tmp/err"; then ok; else ko "calibrate --backend gloo: $(tail -3 "$tmp/err")"; fi
grep -qx 'backend=cpu-gloo' "$tmp/g.calib" && ok || ko "backend: $(grep backend "$tmp/g.calib")"
grep -q '^library=gloo (torch ' "$tmp/g.calib" && ok || ko "library: $(grep library "$tmp/g.calib")"
# the side CSV: one all-reduce row per size at 2 ranks
n=$(awk -F, 'NR > 1 && $8 == "allreduce" && $1 == 2' "$tmp/g.csv" | wc -l)
[ "$n" -eq 3 ] && ok || ko "$n all-reduce rows at 2 ranks in g.csv: $(head -3 "$tmp/g.csv")"
grep -q "all-reduce, 2 ranks on 1 node, *1048576 B" "$tmp/err" && ok || ko "no progress line for 1 MiB: $(head -5 "$tmp/err")"
# the contention probe through gloo as well (gloo-worker.py contention): at
# 2 ranks, two slowdowns (>= 0, a fraction) and a copy bandwidth (> 0)
cont=$(awk '/^\[contention\.2\]/ { f = 1; next } /^\[/ { f = 0 } f' "$tmp/g.calib")
echo "$cont" | awk -F= '$1 == "compute" || $1 == "comm" { if ($2 + 0 < 0 || $2 == "") bad = 1; n++ }
                        $1 == "copy_GBps" { if ($2 + 0 <= 0) bad = 1; n++ } END { exit bad || n != 3 }' \
  && ok || ko "contention at 2 ranks: $cont"
# the worker run by hand as a job's ranks: its contention line
"$py" "$(dirname "$0")/../real/torch-launch.py" 2 "$(dirname "$0")/../calibrate/gloo-worker.py" contention 65536 64 0.02 \
  >"$tmp/cont" 2>&1
grep -Eq '^contention [0-9.]+ [0-9.]+ [0-9.e+]+$' "$tmp/cont" && ok || ko "gloo-worker.py contention: $(cat "$tmp/cont")"

# refused before any work, in one line
"$bin" calibrate --backend gloo --collectives reduce-scatter -o "$tmp/rs.calib" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no reduce-scatter" "$tmp/err" && ok \
  || ko "reduce-scatter with gloo: $(cat "$tmp/err")"
"$bin" calibrate --backend gloo --gap-ms 5 -o "$tmp/gap.calib" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "\-\-gap-ms: with MPI's collectives" "$tmp/err" && ok || ko "--gap-ms with gloo: $(cat "$tmp/err")"
# a python3 without torch: one line, nothing written
printf '#!/bin/sh\necho "# error this python3 cannot import torch (Debian: apt-get install python3-torch)"; exit 1\n' >"$tmp/notorch"
chmod +x "$tmp/notorch"
DPS_PYTHON=$tmp/notorch "$bin" calibrate --backend gloo --quick --sizes 1K --gpus 2 -o "$tmp/none.calib" >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "cannot import torch" "$tmp/err" && [ ! -e "$tmp/none.calib" ] && ok \
  || ko "python3 without torch: exit $st, $(cat "$tmp/err")"
finish calibrate-gloo

#!/bin/sh
# End-to-end calibration from the command line: CPU calibration through MPI
# at 2 and 4 ranks (--quick), its profile used by the simulator, held-out
# sizes reproduced, nccl-tests import, and the errors users meet.
# Usage: test-calibrate-cli.sh DPSCALE_BINARY TEST_DATA_DIR
set -u
bin=$1
data=$2
. "$(dirname "$0")/cli-lib.sh"

# 1. CPU calibration, quick, 2 and 4 ranks
if "$bin" calibrate --quick --gpus 2,4 -o "$tmp/p.calib" >"$tmp/out" 2>"$tmp/err"; then ok; else ko "calibrate: $(tail -2 "$tmp/err")"; fi
for f in p.calib p.csv p.png; do
  if [ -s "$tmp/$f" ]; then ok; else ko "calibrate wrote no $f"; fi
done
# measured points for both rank counts, each checked for correctness
if grep -q '^\[measure.allreduce.2.1\]' "$tmp/p.calib" && grep -q '^\[measure.allreduce.4.1\]' "$tmp/p.calib"; then ok; else ko "profile lacks measurements"; fi
if grep -q '^library=Open MPI' "$tmp/p.calib" && grep -q '^host=' "$tmp/p.calib"; then ok; else ko "profile lacks its origin"; fi
# the held-out sizes (never fitted) are reproduced: mean error under 25%.
# Why not tighter here: 4 ranks share 2 cores in CI, so small messages are
# noisy; the figures on a quiet machine are in the README.
held=$(sed -n 's/.*; \([0-9.]*\)% on [0-9]* held-out points.*/\1/p' "$tmp/out")
if [ -n "$held" ] && awk "BEGIN { exit !($held < 25) }"; then ok; else ko "held-out mean error '$held'%"; fi
# the profile drives the simulator: a 2-rank all-reduce on the calibrated machine
if "$bin" collective --calibration "$tmp/p.calib" --gpus 2 -b 64K -e 64K --format csv >"$tmp/c.csv" 2>"$tmp/err" \
   && grep -q '^allreduce,2,1,65536' "$tmp/c.csv"; then ok; else ko "collective --calibration: $(cat "$tmp/err")"; fi
if "$bin" predict --calibration "$tmp/p.calib" --model mlp --gpus 4 --batch 8 >"$tmp/pr" 2>&1 && grep -q "calibrated" "$tmp/pr"; then ok; else ko "predict --calibration"; fi
# a CPU profile's collective figures describe no GPU cluster: on a named
# GPU topology they are left out, said once, and the step is the
# topology's own (predict without --calibration gives the same)
"$bin" predict --calibration "$tmp/p.calib" --topology dgx-h100 --gpus 16 --format csv >"$tmp/gp.csv" 2>"$tmp/err"
"$bin" predict --topology dgx-h100 --gpus 16 --format csv >"$tmp/gp0.csv" 2>/dev/null
if grep -q "measured MPI ranks on CPU cores: its collective figures are not applied to dgx-h100" "$tmp/err" \
   && cmp -s "$tmp/gp.csv" "$tmp/gp0.csv"; then ok; else ko "CPU profile on dgx-h100: $(cat "$tmp/err")"; fi
# more ranks than the machine was calibrated with: predicted through the
# profile's network fit, and said once on stderr
if "$bin" collective --calibration "$tmp/p.calib" --gpus 16 -b 1M -e 1M >"$tmp/c16" 2>"$tmp/err" \
   && grep -q "16 ranks, more than the 4 .* measured: predicted through its network fit" "$tmp/err" \
   && grep -q '^ *1048576 ' "$tmp/c16"; then ok; else ko "16 ranks: $(cat "$tmp/err")"; fi

# the profile's figures in the terms of what it measured: `topo
# --calibration` shows the calibrated machine (4 CPU ranks on 1 node), and
# its table's datasheet figure is the one calibrate printed, not DGX H100's
if "$bin" topo --calibration "$tmp/p.calib" >"$tmp/topo" 2>"$tmp/err" && grep -q "^1 node x 4 GPUs" "$tmp/topo" \
   && grep -q "^network fit on vm\|^network fit on .*(calibrated)" "$tmp/topo" \
   && [ "$(grep 'per GPU inside a node' "$tmp/topo")" = "$(grep 'per GPU inside a node' "$tmp/out")" ]; then ok
else ko "topo --calibration: $(head -3 "$tmp/topo") $(cat "$tmp/err")"; fi

# all-reduces timed as DDP issues them (each after 10 ms without
# communication): the profile says how they were measured, and a gap that
# is neither a time nor -1 is refused
if "$bin" calibrate --quick --gpus 2 --sizes 1M,4M --gap-ms 10 -o "$tmp/gap.calib" >/dev/null 2>"$tmp/err" \
   && grep -q '^gap_ms=10$' "$tmp/gap.calib" && grep -q '^gap_waits=busy$' "$tmp/gap.calib" \
   && grep -q '^time_us=' "$tmp/gap.calib"; then ok; else ko "gap: $(cat "$tmp/err")"; fi
if "$bin" calibrate --quick --emulated-waits -o "$tmp/bad.calib" 2>"$tmp/err"; then ko "--emulated-waits alone accepted"; else
  grep -q "\-\-emulated-waits" "$tmp/err" && ok || ko "emulated-waits message: $(cat "$tmp/err")"; fi
if "$bin" calibrate --quick --gap-ms -5 -o "$tmp/bad.calib" 2>"$tmp/err"; then ko "--gap-ms -5 accepted"; else
  grep -q "\-\-gap-ms" "$tmp/err" && [ ! -e "$tmp/bad.calib" ] && ok || ko "gap message: $(cat "$tmp/err")"; fi

# all-gather and reduce-scatter measured (MPI_Allgather,
# MPI_Reduce_scatter_block), without an all-reduce: each its own group in
# the profile and the CSV, fitted through the network fit and its
# per-operation correction, so the simulator reproduces every size that
# was not held out (with two sizes, none is) exactly: 0.0% (calibrate
# checks through the same path as `collective --calibration`)
if "$bin" calibrate --quick --gpus 2 --sizes 64K,1M --collectives all-gather,reduce-scatter -o "$tmp/ag.calib" \
     >"$tmp/out" 2>"$tmp/err" \
   && grep -q '^\[measure.allgather.2.1\]' "$tmp/ag.calib" && grep -q '^\[measure.reducescatter.2.1\]' "$tmp/ag.calib" \
   && ! grep -q '^\[measure.allreduce' "$tmp/ag.calib" && grep -q ',allgather$' "$tmp/ag.csv" \
   && grep -q '^all-gather mean |error|: 0.0% on 2 fitted points' "$tmp/out" \
   && grep -q '^reduce-scatter mean |error|: 0.0% on 2 fitted points' "$tmp/out"; then ok
else ko "--collectives all-gather,reduce-scatter: $(tail -1 "$tmp/err") $(grep 'mean |error|' "$tmp/out")"; fi
if "$bin" calibrate --quick --collectives broadcast -o "$tmp/bc.calib" 2>"$tmp/err"; then ko "--collectives broadcast accepted"
else grep -q "^dpscale calibrate: --collectives: 'broadcast' is not all-reduce, all-gather or reduce-scatter" "$tmp/err" \
  && [ ! -e "$tmp/bc.calib" ] && ok || ko "--collectives broadcast: $(cat "$tmp/err")"; fi

# 2. no GPU: a clear error, no profile
if "$bin" calibrate --backend gpu -o "$tmp/g.calib" 2>"$tmp/err"; then
  ok   # a machine with a GPU: fine too
else
  if grep -q "no GPU\|without CUDA" "$tmp/err" && [ ! -e "$tmp/g.calib" ]; then ok; else ko "gpu backend: $(cat "$tmp/err")"; fi
fi

# 3. nccl-tests import
if "$bin" calibrate --import "$data/nccl-tests-1x8.log" --import "$data/nccl-tests-2x8-old.log" -o "$tmp/i.calib" >"$tmp/out" 2>&1; then ok; else ko "import: $(tail -2 "$tmp/out")"; fi
if grep -q '^backend=nccl-tests' "$tmp/i.calib" && grep -q '^\[fit.16.2\]' "$tmp/i.calib"; then ok; else ko "import profile"; fi
if "$bin" calibrate --import "$data/nccl-tests-truncated.log" -o "$tmp/t.calib" 2>"$tmp/err"; then ko "truncated log accepted"; else
  grep -q "nccl-tests-truncated.log:30:" "$tmp/err" && [ ! -e "$tmp/t.calib" ] && ok || ko "truncated: $(cat "$tmp/err")"; fi
# one log holding two machines' runs (an H100 table, then a V100's): the
# second's GPUs are named, whichever comes first
cat "$data/nccl-tests-1x8.log" "$data/nccl-tests-2x8-old.log" >"$tmp/mixed.log"
"$bin" calibrate --import "$tmp/mixed.log" -o "$tmp/mixed.calib" >/dev/null 2>"$tmp/err"
grep -q "its GPUs are Tesla V100-SXM2-32GB, the first table's NVIDIA H100 80GB HBM3" "$tmp/err" && ok \
  || ko "mixed log: $(cat "$tmp/err")"
# what only measuring reads is refused with logs, not ignored (nothing written)
if "$bin" calibrate --import "$data/nccl-tests-1x8.log" --quick --timeout 5 -o "$tmp/q.calib" 2>"$tmp/err"; then ko "--import --quick accepted"
else grep -q -- "--quick" "$tmp/err" && [ ! -e "$tmp/q.calib" ] && ok || ko "--import --quick: $(cat "$tmp/err")"; fi
if "$bin" calibrate --import /nonexistent.log 2>"$tmp/err"; then ko "missing log accepted"; else grep -q "nonexistent.log" "$tmp/err" && ok || ko "missing log message"; fi
# a published all-gather table alone (8 B200s): its own group, fitted
# through the network fit (no all-reduce: no [fit] group), and the profile
# times all-gathers for `collective`
agref=$(dirname "$0")/reference/nccl/vultr-b200-ib-1n-allgather.ref
if "$bin" calibrate --import "$agref" -o "$tmp/agi.calib" >"$tmp/out" 2>"$tmp/err" \
   && grep -q '^\[measure.allgather.8.1\]' "$tmp/agi.calib" && ! grep -q '^\[fit\.' "$tmp/agi.calib" \
   && grep -q '^network fit on HGX B200' "$tmp/out" && grep -q '^all-gather mean |error|' "$tmp/out" \
   && "$bin" collective --calibration "$tmp/agi.calib" --op allgather --gpus 8 -b 1G -e 1G >/dev/null 2>"$tmp/err"; then ok
else ko "all-gather import: $(tail -1 "$tmp/err")"; fi
# machine-readable: --format csv prints the fit's rows, the very .csv
# written beside the profile; --format json the rows, each collective's
# mean errors and the network figures, as numbers
if "$bin" calibrate --import "$agref" -o "$tmp/fmt.calib" --format csv >"$tmp/fmt.out" 2>/dev/null \
   && cmp -s "$tmp/fmt.out" "$tmp/fmt.csv"; then ok; else ko "--format csv is not the .csv"; fi
if "$bin" calibrate --import "$agref" -o "$tmp/fmtj.calib" --format json >"$tmp/fmt.json" 2>/dev/null \
   && python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
p=d["points"]; e=d["errors"]
assert p and all(x["op"]=="allgather" and x["ranks"]==8 and x["measured_s"]>0 for x in p)
assert [x["op"] for x in e]==["allgather"] and e[0]["held_out_points"]+e[0]["fitted_points"]==len(p)
assert d["network"]["fitted"] and d["network"]["intra_bw"]["measured"] and d["profile"].endswith("fmtj.calib")' "$tmp/fmt.json"
then ok; else ko "--format json: $(head -c 300 "$tmp/fmt.json")"; fi
# a network test's log, one rank on each of 10 hosts of 8-GPU nodes (more
# ranks than a node has GPUs, as no whole number of nodes): it imported
# its points, then failed, "--nodes 10 and --gpus 10 disagree"; now the
# ranks run on one GPU of each of 10 nodes and the network fit takes the
# NICs from them (a ring of 10 at 40 GB/s of busbw and 30 us: the fitted
# NIC figure is measured, not left as shipped)
{ for i in 0 1 2 3 4 5 6 7 8 9; do
    printf '#  Rank %2d Group  0 Pid 1 on h%d device  0 [0x18] NVIDIA H100 80GB HBM3\n' "$i" "$i"
  done
  echo '#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong'
  for e in 20 21 22 23 24 25 26 27 28 29 30; do
    awk -v e="$e" 'BEGIN { s = 2 ^ e; t = 30 + 1.8 * s / 40e3; a = s / t / 1e3
      printf "%12d %13d     float     sum      -1 %8.2f %7.2f %7.2f      0 %8.2f %7.2f %7.2f      0\n", s, s / 4, t, a, a * 1.8, t, a, a * 1.8 }'
  done
  echo '# Avg bus bandwidth    : 20.0'; } >"$tmp/ten.log"
if "$bin" calibrate --import "$tmp/ten.log" --topology dgx-h100 -o "$tmp/ten.calib" >"$tmp/out" 2>"$tmp/err" \
   && grep -q '^\[fit.10.10\]' "$tmp/ten.calib" && grep -q '^  NIC bandwidth .* GB/s per NIC$' "$tmp/out"; then ok
else ko "one rank on each of 10 hosts: $(tail -1 "$tmp/err") $(grep 'NIC bandwidth' "$tmp/out")"; fi

# a published reference names its cluster ('#% topology: aws-p5'): imported
# without --topology it is fitted on that cluster, the same profile as with
# --topology aws-p5 (created= aside), and not dgx-h100's, the default
ref=$(dirname "$0")/reference/nccl/aws-p5-2n-allreduce.ref
"$bin" calibrate --import "$ref" -o "$tmp/p5a.calib" >"$tmp/out" 2>"$tmp/err" || ko "reference import: $(tail -1 "$tmp/err")"
"$bin" calibrate --import "$ref" --topology aws-p5 -o "$tmp/p5b.calib" >/dev/null 2>&1 || ko "reference import with --topology"
"$bin" calibrate --import "$ref" --topology dgx-h100 -o "$tmp/p5c.calib" >/dev/null 2>&1 || ko "reference import on dgx-h100"
# the two profiles' lines that differ, their time stamps aside
differ () { diff "$1" "$2" | grep '^[<>]' | grep -v '^[<>] created='; }
if grep -q "topology aws-p5, from .*aws-p5-2n-allreduce.ref's '#% topology:' line" "$tmp/err" \
   && grep -q "network fit on AWS p5.48xlarge" "$tmp/out" && [ -z "$(differ "$tmp/p5a.calib" "$tmp/p5b.calib")" ]; then ok
else ko "reference import: not fitted on its own topology: $(head -1 "$tmp/err")"; fi
if [ -n "$(differ "$tmp/p5a.calib" "$tmp/p5c.calib")" ]; then ok; else ko "aws-p5 and dgx-h100 fits identical"; fi

# 4. profiles that cannot be used
printf '[profile]\nformat=9\nbackend=cpu-mpi\n' >"$tmp/new.calib"
if "$bin" predict --calibration "$tmp/new.calib" 2>"$tmp/err"; then ko "newer profile accepted"; else grep -q "newer dpscale" "$tmp/err" && ok || ko "newer: $(cat "$tmp/err")"; fi

finish calibrate-cli

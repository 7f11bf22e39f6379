#!/bin/sh
# dpscale collective on the command line: its flags, NCCL_ALGO and
# NCCL_PROTO from the environment, CollNet and PAT where NCCL runs them,
# and --compare and calibrate --import on nccl-tests logs.  Usage:
# test-cli-collective.sh DPSCALE_BINARY
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/cli-lib.sh"

expect 2 "\-\-topology: no file 'no-such-thing' and no shipped topology" -- topo no-such-thing
expect 2 "\-\-gpus: 12 GPUs span nodes of 8" -- collective --gpus 12
expect 2 "\-\-nodes 2 and \-\-gpus 8 disagree" -- collective --nodes 2 --gpus 8
expect 2 "\-\-gpus: 2147483647 is out of range (2 to 32768)" -- collective --gpus 2147483647
expect 2 "\-\-gpus: 40000 is out of range (2 to 32768)" -- collective --gpus 40000
expect 2 "\-\-minbytes: 'lots'" -- collective -b lots
expect 2 "\-\-stepfactor: 1 is out of range (more than 1" -- collective -f 1
expect 2 "\-\-algo: unknown algorithm 'magic'" -- collective --algo magic
expect 2 "\-\-format: 'xml'" -- collective --format xml
expect 1 "algorithm nvls needs NVSwitch" -- collective --topology dgx-a100 --algo nvls

# NCCL_ALGO / NCCL_PROTO from the environment, in NCCL's syntax (names in any
# case, commas, '^' excluding), the flags winning.  One DGX H100 (8 GPUs)
# all-reduces every 64 MiB bucket with NVLS by default (NCCL's choice at
# 64 MiB, as collective shows; 16-32 MiB take ring LL128); ^NVLS leaves ring
# and tree.
expect 0 "collectives    nvls x 73" -- predict --gpus 8 --bucket-cap-mb 64 --first-bucket-mb 64
export NCCL_ALGO='^NVLS'
expect 0 "collectives    \(tree\|ring\)" -- predict --gpus 8 --bucket-cap-mb 64 --first-bucket-mb 64
if grep -q nvls "$tmp/out"; then ko "NCCL_ALGO=^NVLS still picks NVLS"; else ok; fi
if grep -q "NCCL_ALGO=^NVLS from the environment" "$tmp/err"; then ok; else ko "no note on NCCL_ALGO"; fi
export NCCL_ALGO='Tree,Ring' NCCL_PROTO=simple
expect 0 "(Simple x 145)" -- predict --gpus 8
# collective, lower case: no size runs NVLS (by default 1 GiB does)
export NCCL_ALGO='^nvls'
unset NCCL_PROTO
expect 0 "" -- collective --format csv -b 1K -e 1G -f 8
if [ "$(grep -c ',nvls,' "$tmp/out")" -eq 0 ] && [ "$(grep -c '^allreduce,' "$tmp/out")" -eq 7 ]; then ok
else ko "collective with NCCL_ALGO=^nvls"; fi
# the flag wins: NCCL_ALGO=tree, --algo ring: every size a ring
export NCCL_ALGO=tree
expect 0 "" -- collective --format csv -b 1K -e 1G -f 8 --algo ring
if [ "$(grep -c ',ring,' "$tmp/out")" -eq 7 ]; then ok; else ko "--algo did not win over NCCL_ALGO"; fi
# CollNet (SHARP) only where NCCL would run it: with NCCL_COLLNET_ENABLE=1
# (or named) on a fabric whose switches reduce (dgx-h100: sharp = true),
# across nodes.  4 DGX H100: 1 GiB and 4 GiB take it (the NICs carry S/8
# each way, a ring 2(n-1)/n S / 8: 1.94 times as much), not without it.
unset NCCL_ALGO
expect 0 "" -- collective --nodes 4 --format csv -b 1G -e 4G -f 4
if [ "$(grep -c ',collnet,' "$tmp/out")" -eq 0 ]; then ok; else ko "collnet chosen without NCCL_COLLNET_ENABLE"; fi
export NCCL_COLLNET_ENABLE=1
expect 0 "" -- collective --nodes 4 --format csv -b 1G -e 4G -f 4
if [ "$(grep -c ',collnet,Simple$' "$tmp/out")" -eq 2 ]; then ok; else ko "NCCL_COLLNET_ENABLE=1 did not pick collnet at 1-4 GiB"; fi
expect 0 "collectives .*collnet x" -- predict --nodes 4
unset NCCL_COLLNET_ENABLE
expect 1 "algorithm collnet needs switches that reduce" -- collective --topology dgx-a100 --nodes 2 --algo collnet
expect 1 "algorithm collnet needs at least 2 nodes" -- collective --nodes 1 --algo CollNetDirect
# PAT: NCCL's all-gather for one GPU a node (--per-node 1): 16 single-GPU
# DGX H100 nodes take it at 64 KiB (4 rounds of latency for a ring's 15
# steps), a ring at 4 GiB (PAT has 0.75 of its bandwidth); never with all
# 8 GPUs of each node, nor with NCCL_PAT_ENABLE=0
expect 0 "" -- collective --nodes 16 --per-node 1 --op allgather --format csv -b 64K -e 4G -f 65536
if [ "$(sed -n 2p "$tmp/out" | cut -d, -f1-3)" = "allgather,16,16" ] && grep -q '^allgather,16,16,65536,.*,pat,Simple$' "$tmp/out" \
   && grep -q '^allgather,16,16,4294967296,.*,ring,Simple$' "$tmp/out"; then ok; else ko "--per-node 1: not PAT at 64 KiB and a ring at 4 GiB on 16 GPUs of 16 nodes"; fi
expect 0 "" -- collective --nodes 2 --op allgather --format csv -b 64K -e 64K
if ! grep -q ',pat,' "$tmp/out"; then ok; else ko "PAT with 8 GPUs a node"; fi
export NCCL_PAT_ENABLE=0
expect 0 "" -- collective --nodes 16 --per-node 1 --op allgather --format csv -b 64K -e 64K
if ! grep -q ',pat,' "$tmp/out"; then ok; else ko "PAT despite NCCL_PAT_ENABLE=0"; fi
unset NCCL_PAT_ENABLE
expect 1 "algorithm pat runs only with one GPU a node" -- collective --nodes 2 --op allgather --algo PAT
expect 1 "algorithm pat runs only allgather and reducescatter" -- collective --nodes 4 --per-node 1 --algo pat
expect 2 "per-node: 9 GPUs asked for in a node of 8" -- collective --nodes 2 --per-node 9
expect 2 "per-node: goes with --nodes, not --gpus" -- collective --gpus 16 --per-node 1
# a log of one rank a host compares on that many nodes of the topology, one
# GPU of each (a ring at 1 MiB on 4 nodes: PAT's 4 x 2.8 us and 0.75 of the
# bandwidth do not pay for its 2 rounds against the ring's 3 steps)
cat >"$tmp/one.log" <<'LOG'
#  Rank  0 Group  0 Pid 1 on h1 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid 1 on h2 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  2 Group  0 Pid 1 on h3 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  3 Group  0 Pid 1 on h4 device  0 [0x18] NVIDIA H100 80GB HBM3
NCCL version 2.26.5+cuda12.9
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
     1048576         65536     float    none      -1    80.00   13.11    9.83      0    80.00   13.11    9.83      0
LOG
expect 0 "on 4 ranks (4 hosts) -> 4 nodes of topology dgx-h100" -- collective --topology dgx-h100 --compare "$tmp/one.log"
if grep -q '^ *1048576 .* ring ' "$tmp/out"; then ok; else ko "a 4-host log of one GPU each: not compared row by row"; fi
# and so does one of more ranks than a node holds, 10 hosts of one GPU (it
# was refused: "10 GPUs span nodes of 8"); 10 ranks spread unevenly over 4
# hosts fill neither whole nodes nor the same GPUs of each, and are refused
{ for i in 0 1 2 3 4 5 6 7 8 9; do
    printf '#  Rank %2d Group  0 Pid 1 on h%d device  0 [0x18] NVIDIA H100 80GB HBM3\n' "$i" "$i"
  done
  sed -n '/^NCCL version/,$p' "$tmp/one.log"; } >"$tmp/ten.log"
expect 0 "on 10 ranks (10 hosts) -> 10 nodes of topology dgx-h100" -- collective --topology dgx-h100 --compare "$tmp/ten.log"
{ for i in 0 1 2 3 4 5 6 7 8 9; do
    printf '#  Rank %2d Group  0 Pid 1 on h%d device  %d [0x18] NVIDIA H100 80GB HBM3\n' "$i" $((i % 4)) $((i / 4))
  done
  sed -n '/^NCCL version/,$p' "$tmp/one.log"; } >"$tmp/uneven.log"
expect 1 "uneven.log: --gpus: 10 GPUs span nodes of 8 GPUs" -- collective --topology dgx-h100 --compare "$tmp/uneven.log"
# sweep: NCCL_ALGO=ring gives what --algo ring gives, not the default
export NCCL_ALGO=ring
"$bin" sweep --gpus 8,16 --format csv >"$tmp/env.csv" 2>/dev/null
unset NCCL_ALGO
"$bin" sweep --gpus 8,16 --format csv --algo ring >"$tmp/flag.csv"
"$bin" sweep --gpus 8,16 --format csv >"$tmp/default.csv"
if cmp -s "$tmp/env.csv" "$tmp/flag.csv" && ! cmp -s "$tmp/env.csv" "$tmp/default.csv"; then ok
else ko "sweep with NCCL_ALGO=ring differs from --algo ring or equals the default"; fi
export NCCL_ALGO=magic
expect 1 "NCCL_ALGO: unknown algorithm 'magic'" -- predict
unset NCCL_ALGO
export NCCL_PROTO='^LL,LL128,Simple'
expect 1 "NCCL_PROTO=^LL,LL128,Simple leaves nothing" -- collective
unset NCCL_PROTO
# the flags take NCCL's syntax too
expect 0 "collectives    \(tree\|ring\)" -- predict --gpus 8 --algo '^NVLS'
# a log of two runs (8 ranks on one host, then 16 behind Slurm's srun
# --label on two): each table compared on its own, named by the line its
# run starts on (35: the first log's 33 lines and the second's comment
# before its nThread line), and summed up as two tables
d="$(dirname "$0")/data"
{ cat "$d/nccl-tests-1x8.log"; sed 's/^/3: /' "$d/nccl-tests-2x8-old.log"; } >"$tmp/runs.log"
"$bin" collective --compare "$tmp/runs.log" --topology dgx-h100 >"$tmp/out" 2>"$tmp/err"
if grep -q "^# $tmp/runs.log:1: runs.log, allreduce on 8 ranks (1 host)" "$tmp/out" \
   && grep -q "^# $tmp/runs.log:35: runs.log, allreduce on 16 ranks (2 hosts)" "$tmp/out" \
   && grep -q "^# suite: 2 tables, 1 system" "$tmp/out"; then ok; else ko "compare of a log of two runs: $(head -3 "$tmp/err")"; fi

# a log's GPUs against another topology's: said, still done (V100s against
# dgx-h100's H100 SXM5; dgx1-v100 and dgx2-v100 have them)
"$bin" collective --compare "$d/nccl-tests-2x8-old.log" --topology dgx-h100 >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && grep -q "nccl-tests-2x8-old.log: its GPUs are Tesla V100-SXM2-32GB, dgx-h100's are H100 SXM5 (shipped with them: dgx1-v100, dgx2-v100, v100-mesh-1x100g)" "$tmp/err"
then ok; else ko "compare against another GPU's topology: $(head -2 "$tmp/err")"; fi
cat "$d/nccl-tests-2x8-old.log" "$d/nccl-tests-2x8-old.log" >"$tmp/v2.log"
"$bin" collective --compare "$tmp/v2.log" --topology dgx-h100 >"$tmp/out" 2>"$tmp/err"
if [ "$(grep -c "its GPUs are" "$tmp/err")" -eq 1 ]; then ok; else ko "the GPUs' note not once for a log of two tables"; fi
"$bin" calibrate --import "$d/nccl-tests-2x8-old.log" -o "$tmp/v100.calib" >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && grep -q "its GPUs are Tesla V100-SXM2-32GB, dgx-h100 (the default)'s are H100 SXM5: give --topology (shipped with them: dgx1-v100, dgx2-v100, v100-mesh-1x100g)" "$tmp/err" "$tmp/out"
then ok; else ko "import against the default topology: $(head -2 "$tmp/err")"; fi
"$bin" calibrate --import "$d/nccl-tests-2x8-old.log" --topology dgx1-v100 -o "$tmp/v100.calib" >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && ! grep -q "its GPUs are" "$tmp/err" "$tmp/out"; then ok; else ko "import against its own GPU's topology warned"; fi

finish cli-collective

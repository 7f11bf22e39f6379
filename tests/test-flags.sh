#!/bin/sh
# One flag vocabulary for every subcommand, table-driven: --gpus/-g is the
# replica count and --nodes the nodes everywhere; the old spellings
# (--ranks, --replicas, -r, and -n for nodes or ranks) still work, each
# with one deprecation line on stderr however often it is given; in
# `collective` nccl-tests' short flags (src/common.cu: -b minbytes,
# -e maxbytes, -f stepfactor, -g ngpus, -d datatype, -c check, -n iters,
# -w warmup_iters, -z blocking) mean what they mean there or are refused
# (-o, nccl-tests' reduction; -a, its average); one default network model
# (flow) and optimizer (Adam), said in --help.  No case starts MPI: the run,
# calibrate and validate cases give a value refused right after parsing,
# whose message names the flag the value went to.
# Usage: test-flags.sh DPSCALE_BINARY
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"

# run ARGS...: status in $got, stdout in $tmp/out, stderr in $tmp/err
run () { "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; got=$?; }
# the text the command printed: stdout on success, else stderr
said () { if [ "$got" -eq 0 ]; then cat "$tmp/out"; else cat "$tmp/err"; fi; }

# 1. the common vocabulary: STATUS PATTERN ARGS, the pattern in what the
# command said and no deprecation note
while read -r want pattern args; do
  [ -z "$want" ] || [ "${want#\#}" != "$want" ] && continue
  # shellcheck disable=SC2086
  run $args
  if [ "$got" -eq "$want" ] && said | grep -q -- "$pattern" && ! grep -q deprecated "$tmp/err"; then ok
  else ko "dpscale $args -> exit $got (want $want, '$pattern'): $(said | head -2)"; fi
done <<'T'
# the replica count, long and short, in each subcommand
0 on.16.x.H100                       predict --gpus 16
0 on.16.x.H100                       predict -g 16
0 ^GPT-2.XL,DGX.H100,16,2            sweep --gpus 8,16 --format csv
0 ^GPT-2.XL,DGX.H100,16,2            sweep -g 8,16 --format csv
0 allreduce.on.16.GPUs               collective --gpus 16 -b 1M -e 1M
0 allreduce.on.16.GPUs               collective -g 16 -b 1M -e 1M
0 =.16.GPUs                          topo --gpus 16
0 =.16.GPUs                          topo -g 16
2 --gpus:.0.is.out.of.range.(1.to.256) run --gpus 0
2 --gpus:.0.is.out.of.range.(1.to.256) run -g 0
2 --gpus:.'1'.is.not.a.whole.number  calibrate --backend cpu --gpus 1
2 --gpus:.'1'.is.not.a.whole.number  calibrate --backend cpu -g 1
2 --gpus:.'0'.is.not.a.whole.number  validate --gpus 0,2
2 --gpus:.'0'.is.not.a.whole.number  validate -g 0,2
# nodes, long only (-n is nccl-tests' iterations)
0 on.16.x.H100.*2.nodes              predict --nodes 2
2 --nodes:.sweep.takes.GPU.counts    sweep --nodes 2
0 allreduce.on.32.GPUs               collective --nodes 4 -b 1M -e 1M
0 =.16.GPUs                          topo --nodes 2
2 --nodes:.1.emulated.nodes          run --nodes 1
2 --nodes:.2.to.64.emulated.nodes    calibrate --nodes 1
2 --nodes:.2.to.64.emulated.nodes    validate --nodes 1
T

# 2. old spellings: OLD-ARGS | NEW-ARGS | NOTE: the same status, stdout and
# stderr as the new spelling, plus NOTE on stderr exactly once (the old
# flags are given twice where the command takes them twice)
while IFS='|' read -r old new note; do
  [ -z "$old" ] || [ "${old#\#}" != "$old" ] && continue
  # shellcheck disable=SC2086
  run $new; want=$got; cp "$tmp/out" "$tmp/want.out"; cp "$tmp/err" "$tmp/want.err"
  # shellcheck disable=SC2086
  run $old
  n=$(grep -c -- "^dpscale [a-z]*: $note is deprecated: use " "$tmp/err")
  grep -v -- " is deprecated: use " "$tmp/err" >"$tmp/rest.err"
  if [ "$got" -eq "$want" ] && [ "$n" -eq 1 ] && cmp -s "$tmp/out" "$tmp/want.out" && cmp -s "$tmp/rest.err" "$tmp/want.err"
  then ok; else ko "dpscale$old -> exit $got, $n notes '$note' (want exit $want like$new, 1 note): $(cat "$tmp/err")"; fi
  if grep -q deprecated "$tmp/want.err"; then ko "dpscale$new: a note on the new spelling"; else ok; fi
done <<'T'
 run --ranks 0 | run --gpus 0 |--ranks
 run --ranks=0 | run --gpus 0 |--ranks
 run -n 0 | run --gpus 0 |-n
 run -n0 | run --gpus 0 |-n
 calibrate --backend cpu --ranks 2 --ranks 1 | calibrate --backend cpu --gpus 1 |--ranks
 calibrate --backend cpu -r 1 | calibrate --backend cpu --gpus 1 |-r
 validate --replicas 4 --replicas 0,2 | validate --gpus 0,2 |--replicas
 validate -r 0,2 | validate --gpus 0,2 |-r
 predict -n 2 -n 2 | predict --nodes 2 |-n
 sweep -n 2 | sweep --nodes 2 |-n
 topo -n 2 | topo --nodes 2 |-n
 topo dgx1-v100 -n 4 | topo dgx1-v100 --nodes 4 |-n
T
# and the note is the one the issue asked for, word for word
run run --ranks 0
if head -1 "$tmp/err" | grep -qx "dpscale run: --ranks is deprecated: use --gpus"; then ok; else ko "note: $(head -1 "$tmp/err")"; fi

# 3. nccl-tests' short flags in collective.  -b/-e/-f: 1 KiB to 16 KiB by 4
# is three rows (1K, 4K, 16K); -d half: a 1 KiB row counts 512 elements;
# -g 8: one DGX H100 (nccl-tests' GPUs of one process)
run collective -b 1K -e 16K -f 4 --format csv
if [ "$got" -eq 0 ] && [ "$(grep -c '^allreduce,' "$tmp/out")" -eq 3 ]; then ok; else ko "-b/-e/-f rows: $(said)"; fi
run collective -b 1K -e 1K -d half
if awk '$1 == 1024 { found = ($2 == 512 && $3 == "half") } END { exit !found }' "$tmp/out"; then ok; else ko "-d half: $(said)"; fi
run collective -g 8 -b 1M -e 1M
if grep -q "allreduce on 8 GPUs of DGX H100 (1 node" "$tmp/out"; then ok; else ko "-g 8: $(said | head -1)"; fi
# a line pasted from all_reduce_perf: -c 1 (check), -n 20 (iterations),
# -w 5 (warm-up), -z 0 (blocking) change nothing in a prediction, so the
# rows equal those without them, with one note saying they were ignored.
# Before, -c 1 was one NCCL channel: 128 MiB ring busbw 310 -> 46 GB/s.
"$bin" collective -b 8 -e 128M -f 2 -g 8 --format csv >"$tmp/plain.csv" 2>/dev/null
run collective -b 8 -e 128M -f 2 -g 8 -c 1 -n 20 -w 5 -z 0 --format csv
if [ "$got" -eq 0 ] && cmp -s "$tmp/out" "$tmp/plain.csv" && [ "$(grep -c "nccl-tests' -c/-n/-w/-z" "$tmp/err")" -eq 1 ]
then ok; else ko "pasted nccl-tests line: exit $got, $(cat "$tmp/err")"; fi
"$bin" collective -b 128M -e 128M -g 16 --algo ring --format csv >"$tmp/ring.csv" 2>/dev/null
"$bin" collective -b 128M -e 128M -g 16 --algo ring --format csv --channels 1 >"$tmp/ch1.csv" 2>/dev/null
run collective -b 128M -e 128M -g 16 --algo ring --format csv -c 1
if cmp -s "$tmp/out" "$tmp/ring.csv" && ! cmp -s "$tmp/out" "$tmp/ch1.csv"; then ok
else ko "-c 1 is not nccl-tests' check (or --channels 1 changes nothing)"; fi
# -n is not nodes any more: the default 2 nodes stay
run collective -n 4 -b 1M -e 1M
if grep -q "allreduce on 16 GPUs" "$tmp/out"; then ok; else ko "-n 4 changed the nodes: $(head -1 "$tmp/out")"; fi
# refused where dpscale's meaning differs: -o (nccl-tests' reduction) and
# -a (nccl-tests' average, dpscale's --algo), naming the flag; nothing written
while read -r pattern args; do
  [ -z "$pattern" ] && continue
  # shellcheck disable=SC2086
  (cd "$tmp" && "$bin" $args >"$tmp/out" 2>"$tmp/err"); got=$?
  if [ "$got" -eq 2 ] && grep -q -- "$pattern" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/sum" ]; then ok
  else ko "dpscale $args -> exit $got (want 2, '$pattern'): $(cat "$tmp/err")"; fi
done <<'T'
-o.sum:.-o.is.the.output.file    collective -b 8 -e 1K -o sum
-o.sum:.-o.is.the.output.file    collective -osum
--algo:.unknown.algorithm.'1'    collective -a 1
T
# --output sum is a file of that name, as asked
(cd "$tmp" && "$bin" collective -b 8 -e 1K --output sum 2>/dev/null)
if [ -s "$tmp/sum" ]; then ok; else ko "--output sum wrote nothing"; fi

# 4. one default network model and optimizer.  Each --help says it, and
# each command's header names the model it used: flow-level in predict,
# sweep (analytical before) and collective alike.  (On the shipped
# topologies the two models give the same figures today, so the header,
# not a figure, is what tells them apart.)
while read -r pattern cmd; do
  [ -z "$pattern" ] && continue
  if "$bin" "$cmd" --help 2>&1 | grep -q -- "$pattern"; then ok; else ko "$cmd --help does not say '$pattern'"; fi
done <<'T'
flow.*the.default.everywhere  predict
flow.*the.default.everywhere  sweep
flow-level.network.model      sweep
flow.*default                 collective
flow-level.network.model      validate
adam.(default                 predict
adam.(default                 sweep
adam.(default                 run
SGD                           validate
T
while read -r pattern args; do
  [ -z "$pattern" ] && continue
  # shellcheck disable=SC2086
  run $args
  if [ "$got" -eq 0 ] && grep -q -- "$pattern" "$tmp/out"; then ok; else ko "dpscale $args: no '$pattern': $(head -1 "$tmp/out")"; fi
done <<T
^dpscale.predict:.*flow-level.network$              predict --gpus 8
^dpscale.sweep:.GPT-2.XL,.flow-level.network.model  sweep --gpus 8 -o $tmp/sw
^#.dpscale.collective:.*flow-level.model            collective -b 1M -e 1M
"mode".:."flow"                                     collective -b 1M -e 1M --format json
T
# Adam by default: predict's optimizer state is Adam's 12 bytes a parameter
# (the same as --optimizer adam, more than --optimizer sgd)
"$bin" predict --gpus 8 --format json >"$tmp/d.json" 2>/dev/null
"$bin" predict --gpus 8 --format json --optimizer sgd >"$tmp/sgd.json" 2>/dev/null
if [ "$(num optimizer "$tmp/d.json")" != "$(num optimizer "$tmp/sgd.json")" ]; then ok; else ko "predict's default optimizer is SGD"; fi

# one range per shared flag (sim/app/cli-flags.c): every command that
# lists the flag in --help refuses the same value past it with the same
# range (before: run took --bucket-cap-mb 1e308, predict refused it;
# --grad-accum was 1e6 in predict, 1024 in run)
while read -r flag bad range; do
  [ -z "$flag" ] && continue
  n=0
  for cmd in predict sweep advise run validate calibrate; do
    "$bin" "$cmd" --help 2>/dev/null | grep -q -- " $flag=" || continue
    n=$((n + 1))
    run "$cmd" "$flag" "$bad"
    if [ "$got" -eq 2 ] && grep -qF -- "$flag: $bad is out of range ($range)" "$tmp/err"; then ok
    elif [ "$cmd" = advise ] && grep -q "what advise searches" "$tmp/err"; then ok   # advise searches it: refused as a flag
    else ko "dpscale $cmd $flag $bad -> exit $got: $(head -1 "$tmp/err") (want '$range')"; fi
  done
  [ $n -ge 2 ] && ok || ko "$flag: in $n commands' --help, not a shared flag"
done <<'T'
--bucket-cap-mb 2000000 more than 0, at most 1000000
--first-bucket-mb 2000000 at least 0, at most 1000000
--batch 2000000 1 to 1048576
--grad-accum 5000 1 to 4096
--jitter 11 at least 0, at most 10
--link-gbps 2000000 more than 0, at most 1000000
--timeout 20000000 more than 0, at most 10000000
T

finish flags

#!/bin/sh
# Signals to the commands that start processes (run, calibrate, validate):
# after SIGINT, SIGTERM or SIGHUP no process of the command is left (mpirun,
# orted, ranks), no temporary folder, and as root (emulated nodes) no network
# namespace, bridge or veth; the exit status is 128 + the signal, as a shell
# reports a process the signal ended.  After SIGKILL, which dpscale cannot
# catch, no process of it is left either.  As root also: a dead run's namespaces
# are removed by the next run, and two runs at once get different clusters.
# Usage: test-signals.sh DPSCALE_BINARY
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
. "$(dirname "$0")/cli-lib.sh"
t=$tmp
if ! command -v mpirun >/dev/null; then echo "signals: mpirun missing, skipped"; exit 0; fi
root=no
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v tc >/dev/null && command -v flock >/dev/null \
   && ip netns list >/dev/null 2>&1; then root=yes; fi

# pids TOKEN: the processes whose environment carries DPS_SIGNAL_TOKEN=TOKEN
# (dpscale passes its environment to mpirun, which passes it on)
pids () {
  grep -la "DPS_SIGNAL_TOKEN=$1" /proc/[0-9]*/environ 2>/dev/null | sed 's,/proc/\([0-9]*\)/environ,\1,'
}
# start NAME ARGS...: runs dpscale ARGS in the background with its own TMPDIR
# and token; waits until it has started a child (mpirun) and a moment more
start () {
  name=$1
  shift
  mkdir -p "$t/tmp-$name"
  TMPDIR=$t/tmp-$name DPS_SIGNAL_TOKEN=$name-$$ "$bin" "$@" >"$t/out-$name" 2>"$t/err-$name" &
  pid=$!
  i=0
  while [ $i -lt 600 ] && [ "$(pids "$name-$$" | grep -vx "$pid" | wc -l)" -lt 2 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
  done
  sleep 1
}
# check NAME SIGNAL NUMBER: the status is 128+NUMBER and nothing is left
check () {
  name=$1 sig=$2 num=$3
  wait $pid
  got=$?
  if [ $got -eq $((128 + num)) ]; then ok; else ko "$name: SIG$sig gave exit $got, want $((128 + num)): $(tail -2 "$t/err-$name")"; fi
  i=0
  while [ $i -lt 50 ] && [ -n "$(pids "$name-$$")" ]; do sleep 0.1; i=$((i + 1)); done
  left=$(pids "$name-$$")
  if [ -z "$left" ]; then ok; else ko "$name: SIG$sig left processes: $(for p in $left; do tr '\0' ' ' </proc/$p/cmdline; echo; done)"; fi
  if [ -z "$(ls -A "$t/tmp-$name")" ]; then ok; else ko "$name: SIG$sig left in TMPDIR: $(ls -A "$t/tmp-$name")"; fi
  if [ $root = yes ]; then
    l=$(leftovers)
    if [ -z "$l" ]; then ok; else ko "$name: SIG$sig left namespaces or links of $l"; fi
  fi
}
# one case: NAME SIGNAL NUMBER ARGS...
case1 () {
  name=$1 sig=$2 num=$3
  shift 3
  start "$name" "$@"
  kill -"$sig" $pid
  check "$name" "$sig" "$num"
}

case1 run-int INT 2 run --steps 100000 --warmup 1
case1 run-term TERM 15 run --steps 100000 --warmup 1
case1 run-hup HUP 1 run --steps 100000 --warmup 1
case1 calibrate-int INT 2 calibrate --quick -o "$t/never.calib"
case1 calibrate-term TERM 15 calibrate --quick -o "$t/never.calib"
case1 validate-int INT 2 validate --quick -o "$t/never"
case1 validate-term TERM 15 validate --quick -o "$t/never"
# SIGKILL leaves dpscale no say: its mpirun gets SIGTERM from the kernel
# (PR_SET_PDEATHSIG, real/launch.c) and takes its ranks (and orted in
# emulated nodes) with it, and the launch's watchdog SIGKILLs whatever of
# its process group is left 5 s later.  (Open MPI's mpirun here also ends
# once its output pipe closes, so this held before the prctl too; the
# prctl makes it hold for a quiet child as well.)  A dead run's
# namespaces are the next run's to remove (checked below).
kill_case () {
  name=$1
  shift
  start "$name" "$@"
  kill -KILL $pid
  wait $pid
  # mpirun gets SIGTERM as dpscale dies (real/launch.c) and passes it on
  # before it exits; with emulated nodes it reaches its daemons through
  # their namespaces, which under the whole suite's load once took past
  # 5 s (a clean-clone run, 2026-12-07): 15 s allowed
  i=0
  while [ $i -lt 150 ] && [ -n "$(pids "$name-$$")" ]; do sleep 0.1; i=$((i + 1)); done
  left=$(pids "$name-$$")
  if [ -z "$left" ]; then ok; else
    ko "$name: SIGKILL left processes: $(for p in $left; do tr '\0' ' ' </proc/$p/cmdline; echo; done)"
    kill -KILL $left 2>/dev/null
  fi
  rm -rf "$t/tmp-$name"   # its temporary folder: nobody could remove it
}
kill_case run-kill run --steps 100000 --warmup 1
# a launched child deaf to SIGTERM (the signal PR_SET_PDEATHSIG sends):
# the launch's watchdog SIGKILLs its process group 5 s after dpscale is
# gone (real/launch.c), within kill_case's 15 s; without it the child ran
# its 60 s out
printf '#!/bin/sh\ntrap "" TERM\nsleep 60\n' >"$t/deaf"
chmod +x "$t/deaf"
export DPS_PYTHON="$t/deaf"
kill_case deaf-kill calibrate --backend gloo --quick --sizes 1K --gpus 2 -o "$t/never.calib"
unset DPS_PYTHON
# a run that ends by itself leaves nothing either: each launch's watchdog
# is released as the launch ends
mkdir -p "$t/tmp-done"
if TMPDIR=$t/tmp-done DPS_SIGNAL_TOKEN=done-$$ "$bin" run --steps 2 --warmup 1 >/dev/null 2>"$t/err-done"; then ok
else ko "run --steps 2: $(tail -2 "$t/err-done")"; fi
left=$(pids "done-$$")
if [ -z "$left" ]; then ok; else ko "a finished run left: $(for p in $left; do tr '\0' ' ' </proc/$p/cmdline; echo; done)"; fi

# a signal while nothing of the command runs outside it (the layer times are
# measured in-process first) ends it at once, not at the next launch
mkdir -p "$t/tmp-early"
TMPDIR=$t/tmp-early "$bin" calibrate --quick --model transformer-small -o "$t/never.calib" >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -TERM $pid
i=0
while [ $i -lt 30 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
if kill -0 $pid 2>/dev/null; then ko "SIGTERM during in-process work: still running after 3 s"; kill -KILL $pid; fi
wait $pid
got=$?
if [ $got -eq 143 ]; then ok; else ko "SIGTERM during in-process work: exit $got, want 143"; fi
if [ -e "$t/never.calib" ] || [ -e "$t/never.csv" ]; then ko "an interrupted calibration or validation wrote its results"; else ok; fi

if [ $root = yes ]; then
  # a dead run's cluster (id 999, nobody holds its lock) is removed by the next run
  ip netns add dps999n0 && ip link add dpsb999 type bridge
  case1 nodes-run-int INT 2 run --nodes 2 --gpus 2 --steps 100000 --warmup 1 --yes
  if ! ip netns list | grep -q '^dps999n0' && ! ip link show dpsb999 >/dev/null 2>&1; then ok
  else ko "the stale namespace dps999n0 or bridge dpsb999 is still there"; ip netns del dps999n0; ip link del dpsb999; fi
  kill_case nodes-run-kill run --nodes 2 --gpus 2 --steps 100000 --warmup 1 --yes
  # (its namespaces: removed by the next run, whose check follows)
  case1 nodes-run-term TERM 15 run --nodes 2 --gpus 2 --steps 100000 --warmup 1 --yes
  case1 nodes-calibrate-int INT 2 calibrate --quick --nodes 2 --link-gbps 1 -o "$t/never.calib"
  case1 nodes-calibrate-term TERM 15 calibrate --quick --nodes 2 --link-gbps 1 -o "$t/never.calib"
  case1 nodes-validate-int INT 2 validate --quick --nodes 2 --link-gbps 1 -o "$t/never"
  case1 nodes-validate-term TERM 15 validate --quick --nodes 2 --link-gbps 1 -o "$t/never"
  # two runs at once: two clusters with different ids, both removed after
  start two-a run --nodes 2 --gpus 2 --steps 100000 --warmup 1 --yes
  pid_a=$pid
  start two-b run --nodes 2 --gpus 2 --steps 100000 --warmup 1 --yes
  ids=$(ip netns list | sed -n 's/^dps\([0-9]*\)n[0-9]* .*/\1/p' | sort -u | wc -l)
  if [ "$ids" -ge 2 ]; then ok; else ko "two runs share one emulated cluster: $(ip netns list | tr '\n' ' ')"; fi
  kill -TERM $pid_a
  pid_keep=$pid
  pid=$pid_a
  check two-a TERM 15
  pid=$pid_keep
  kill -TERM $pid
  check two-b TERM 15
  # no lock file of a dead run is left in /run (each run removes its own
  # as it ends, and a killed run's is removed by the next run's start)
  stale=""
  for f in /run/dpscale-netemu-*.lock /tmp/dpscale-netemu-*.lock; do
    [ -e "$f" ] && flock -n "$f" true && stale="$stale $f"
  done
  if [ -z "$stale" ]; then ok; else ko "lock files nobody holds:$stale"; fi
else
  echo "signals: not root, the emulated-node cases skipped"
fi

finish signals

#!/bin/sh
# `calibrate --import` of a log of 300,000 rows (36 MB, under the 64 MiB a
# file may hold): every size 8 B apart from 8 B to 2.4 MB, two protocols
# (to 64 KiB: 1.5 us and 5 GB/s a step; beyond: 4 us and 60 GB/s), 1%
# noise.  Before the fit's search was made n log n and the network fit
# sampled a large group, this ran for hours without a word (the regime
# search was cubic in sizes: 1,000 took 0.8 s); now it finishes within
# minutes (about 25 s on 2 shared cores), says where it stands on stderr
# once past 3 s, and finds the protocol switch.  A copy of half of it
# beside it is refused (the check for a log given twice hashes rows), and
# two different logs are taken.
# Usage: test-import-scale.sh DPSCALE_BINARY
set -u
bin=$1
. "$(dirname "$0")/cli-lib.sh"
head -16 "$(dirname "$0")/data/nccl-tests-1x8.log" >"$tmp/head"
rows () {   # rows FIRST LAST: the rows of sizes 8 FIRST .. 8 LAST
  awk -v a="$1" -v b="$2" 'BEGIN {
    srand(7)
    for (i = a; i <= b; i++) {
      S = 8 * i
      t = S <= 65536 ? 14 * 1.5e-6 + 1.75 * S / 5e9 : 14 * 4e-6 + 1.75 * S / 60e9
      t *= 1 + 0.01 * (rand() - 0.5)
      printf "%12d %12d     float     sum      -1 %8.2f %7.2f %7.2f       0 %8.2f %7.2f %7.2f       0\n",
             S, S / 4, t * 1e6, S / t / 1e9, 1.75 * S / t / 1e9, t * 1e6, S / t / 1e9, 1.75 * S / t / 1e9
    } }'
}
{ cat "$tmp/head"; rows 1 300000; echo "# Avg bus bandwidth    : 1.0"; } >"$tmp/big.log"
start=$(date +%s)
timeout 600 "$bin" calibrate --import "$tmp/big.log" -o "$tmp/big.calib" >"$tmp/out" 2>"$tmp/err"
got=$? took=$(($(date +%s) - start))
echo "300,000 rows imported in $took s"
if [ $got = 0 ]; then ok; else ko "import of 300,000 rows -> $got after $took s: $(tail -2 "$tmp/err")"; fi
if [ "$took" -lt 300 ]; then ok; else ko "300,000 rows took $took s"; fi
# progress past a few seconds, counting the points it checks
if grep -q "^calibrate: checking the fit through the simulator: [0-9]* of 300000 ([0-9]* s)$" "$tmp/err"; then ok
else ko "no progress on stderr: $(head -3 "$tmp/err")"; fi
# the switch between the 65536 B row and the next: its regime bound between them
bound=$(sed -n 's/.*8 ranks  1 node   regime 0  up to *\([0-9]*\) B.*/\1/p' "$tmp/out" | head -1)
if [ -n "$bound" ] && [ "$bound" -ge 65536 ] && [ "$bound" -le 65544 ]; then ok
else ko "regime bound '$bound' B, want between 65536 and 65544: $(grep regime "$tmp/out" | head -3)"; fi
# a copy of 150,000 rows beside them: refused once its rows are hashed
# (a pairwise check would not end); two different halves of 30,000: taken
{ cat "$tmp/head"; rows 1 150000; } >"$tmp/a.log"
cp "$tmp/a.log" "$tmp/copy.log"
{ cat "$tmp/head"; rows 1 30000; } >"$tmp/h1.log"
{ cat "$tmp/head"; rows 30001 60000; } >"$tmp/h2.log"
timeout 600 "$bin" calibrate --import "$tmp/h1.log" --import "$tmp/h2.log" -o "$tmp/ab.calib" >/dev/null 2>"$tmp/err"
got=$?
if [ $got = 0 ] && [ -s "$tmp/ab.calib" ]; then ok; else ko "two logs of 30,000 rows -> $got: $(tail -1 "$tmp/err")"; fi
timeout 600 "$bin" calibrate --import "$tmp/a.log" --import "$tmp/copy.log" -o "$tmp/never.calib" >/dev/null 2>"$tmp/err"
if [ $? = 2 ] && grep -q "copy.log holds the same rows as $tmp/a.log" "$tmp/err"; then ok; else ko "a copy of 150,000 rows: $(cat "$tmp/err")"; fi
finish import-scale

#!/bin/sh
# The catalogue of bad inputs: every malformed file, impossible flag and
# unusable path users meet, each answered with its exit status (2 for a bad
# flag, an output path refused included, 1 for a bad file or a failed
# write) and a one-line message that names the file and line, or the flag.
# No output file is left half-written.
# Usage: test-bad-inputs.sh DPSCALE_BINARY
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
. "$(dirname "$0")/cli-lib.sh"
t=$tmp

# --- the bad files ---
printf '' >"$t/empty"
printf '' >"$t/empty.csv"
head -c 600 /dev/urandom >"$t/garbage"; printf '\000' >>"$t/garbage"
good_topo='[system]\nname = t\ngpus_per_node = 2\n[gpu]\nmodel = g\nfp32_tflops = 10\nmemory_GB = 1\nmemory_bw_GBps = 1\n[intra]\nfabric = nvswitch\nbw_GBps = 100\n'
printf "$good_topo" >"$t/ok.topo"
printf '[system]\nname = t\ngpus_per' >"$t/trunc.topo"
printf "$good_topo"'colour = red\n' >"$t/unknown.topo"
printf "$good_topo"'[gpu]\nmodel = h\n' >"$t/dup.topo"
printf "$good_topo" | sed 's/gpus_per_node = 2/gpus_per_node = 100000/' >"$t/range.topo"
printf "$good_topo" | sed 's/bw_GBps = 100/bw_GBps = lots/' >"$t/text.topo"
printf "$good_topo" | sed 's/fp32_tflops = 10/fp32_tflops = nan/' >"$t/nan.topo"
printf "$good_topo" | sed 's/fp32_tflops = 10/fp32_tflops = inf/' >"$t/inf.topo"
printf "$good_topo" | sed 's/memory_GB = 1/memory_GB = 1e400/' >"$t/huge.topo"
printf "$good_topo" | sed 's/bw_GBps = 100/bw_GBps = -5/' >"$t/neg.topo"
printf 'layer,params,forward_ms,backward_ms\nfc,10,1,2\nfc2,10,1' >"$t/trunc.csv"
printf 'layer,params,forward_ms,backward_ms\nfc,10,nan,2\n' >"$t/nan.csv"
printf 'layer,params,forward_ms,backward_ms\nfc,99999999999999999999,1,2\n' >"$t/huge.csv"
printf '[model]\nname = x\narchitecture = gpt2\nlayers = 100000000\nhidden = 64\nheads = 1\nvocab = 10\nseq = 8\n' >"$t/huge.model"
printf '[model]\nname = x\narchitecture = mlp\nwidths = 1000,2000000,10\n' >"$t/wide.model"
printf '[profile]\nformat = 7\nbackend = cpu-mpi\n' >"$t/newer.calib"
printf '[profile]\nformat = 1\nbackend = cpu-mpi\n[fit.2.1]\nranks = 2\nnodes = 1\nregimes = 1\nmax_bytes = 0\nlatency_us = x\nbw_GBps = 1\n' >"$t/bad.calib"
mkdir -p "$t/dir"

# refuses STATUS PATTERN ARGS...: exit status and a one-line message on stderr
refuses () {
  want=$1 pattern=$2
  shift 2
  timeout 60 "$bin" "$@" >"$t/out" 2>"$t/err"
  got=$?
  lines=$(wc -l <"$t/err")
  if [ "$got" -eq "$want" ] && grep -q -- "$pattern" "$t/err" && [ "$lines" -eq 1 ]; then
    ok
  else
    ko "dpscale $* -> exit $got (want $want), $lines lines: $(head -2 "$t/err")"
  fi
}

# topology files
refuses 1 "empty: missing section \[system\]" topo "$t/empty"
refuses 1 "garbage: binary data" topo "$t/garbage"
refuses 1 "trunc.topo:3: expected 'key = value'" topo "$t/trunc.topo"
refuses 1 "unknown.topo:12: \[intra\] colour: unknown key" topo "$t/unknown.topo"
refuses 1 "dup.topo:12: group \[gpu\] appears twice (first on line 4)" topo "$t/dup.topo"
refuses 1 "range.topo:3: \[system\] gpus_per_node: 100000 is out of range" topo "$t/range.topo"
refuses 1 "text.topo:11: \[intra\] bw_GBps: expected a number, got 'lots'" topo "$t/text.topo"
refuses 1 "nan.topo:6: \[gpu\] fp32_tflops: expected a number, got 'nan'" topo "$t/nan.topo"
refuses 1 "inf.topo:6: \[gpu\] fp32_tflops: expected a number, got 'inf'" topo "$t/inf.topo"
refuses 1 "huge.topo:7: \[gpu\] memory_GB: expected a number, got '1e400'" topo "$t/huge.topo"
refuses 1 "neg.topo:11: \[intra\] bw_GBps: -5 is out of range" topo "$t/neg.topo"
refuses 1 "/no/such.topo" topo /no/such.topo
refuses 1 "is a directory" topo "$t/dir"
# models
refuses 1 "empty: missing section \[model\]" predict --model "$t/empty" --gpus 8
refuses 1 "empty.csv: no header" predict --model "$t/empty.csv" --gpus 8
refuses 1 "trunc.csv:3: 3 fields, the header has 4" predict --model "$t/trunc.csv" --gpus 8
refuses 1 "nan.csv:2: forward_ms: 'nan'" predict --model "$t/nan.csv" --gpus 8
refuses 1 "huge.csv:2: params" predict --model "$t/huge.csv" --gpus 8
refuses 1 "huge.model:4: \[model\] layers: 100000000 is out of range" predict --model "$t/huge.model"
refuses 1 "wide.model:4: \[model\] widths: '2000000' is not a whole number from 1 to 1048576" predict --model "$t/wide.model"
refuses 1 "garbage:1: not UTF-8 text\|garbage: binary data" predict --model "$t/garbage"
# a NUL byte first (what random garbage sometimes starts with): the bytes
# before it are a valid empty text, so only the length read tells binary
printf '\000[model]\n' >"$t/nul.model"
printf 'layer,params,forward_ms,backward_ms\n\000' >"$t/nul.csv"
refuses 1 "nul.model: binary data" predict --model "$t/nul.model"
refuses 1 "nul.csv: binary data" predict --model "$t/nul.csv"
refuses 1 "is a directory" predict --model "$t/dir/"
# calibration profiles and logs
refuses 1 "newer.calib:2: \[profile\] format: format 7 was written by a newer dpscale" predict --calibration "$t/newer.calib"
refuses 1 "bad.calib:9: \[fit.2.1\] latency_us: 'x' is not a number" collective --calibration "$t/bad.calib"
refuses 1 "empty: missing section \[profile\]" predict --calibration "$t/empty"
refuses 1 "garbage: binary data" calibrate --import "$t/garbage" -o "$t/never.calib"
refuses 1 "empty: no nccl-tests table" calibrate --import "$t/empty" -o "$t/never.calib"
# flags: out of range, not numbers, overflowing, in conflict
refuses 2 "\-\-gpus: '0'" predict --gpus 0
refuses 2 "\-\-gpus: 0 GPUs asked for\|\-\-gpus" collective --gpus -1
refuses 2 "Cannot parse integer value\|out of range" collective --gpus 2147483648
refuses 2 "\-\-gpus: 1000000000 is out of range (1 to 131072)" topo --gpus 1000000000
refuses 2 "\-\-nodes: at most 131072 GPUs are simulated (16384 nodes of 8)" topo --nodes 20000
refuses 2 "\-\-gpus: .2147483647. is not a number from 1 to 131072" predict --gpus 2147483647
# the largest clusters finish in seconds (131072 GPUs: predict about 3 s; 32768 GPUs: collective's 28
# sizes about 1 s on 2 cores); beyond, refused at once (2^20 GPUs took 79 s and 5.4 GB)
refuses 2 "\-\-gpus: .1048576. is not a number from 1 to 131072" predict --gpus 1048576
refuses 2 "\-\-gpus: .262144. is not a whole number from 1 to 131072" sweep --gpus 8,262144
refuses 2 "\-\-nodes: at most 131072 GPUs are simulated (16384 nodes of 8)" predict --nodes 16385
refuses 2 "\-\-nodes: at most 32768 GPUs in a collective" collective --nodes 131072
refuses 2 "\-\-nodes: at most 32768 GPUs in a collective (4096 nodes of 8), got 32776" collective --nodes 4097
refuses 2 "\-\-gpus: 32776 is out of range (2 to 32768)" collective --gpus 32776
refuses 2 "\-\-minbytes: '1e999'" collective -b 1e999
refuses 2 "\-\-bucket-cap-mb: 'nan'" predict --bucket-cap-mb nan
refuses 2 "\-\-bucket-cap-mb: 'inf'" predict --bucket-cap-mb inf
refuses 2 "\-\-price-per-gpu-hour: -1 is out of range" predict --price-per-gpu-hour -1
refuses 2 "\-\-nodes 2 and \-\-gpus 8 disagree" predict --nodes 2 --gpus 8
refuses 2 "\-\-critical-batch and \-\-steps-to-target go together" predict --critical-batch 100
refuses 2 "\-\-trace: only for dpscale predict" sweep --trace "$t/x.json"
refuses 2 "\-\-plot: only for dpscale predict (advise" advise --plot "$t/x.png"
refuses 2 "\-\-trace: only for dpscale predict (advise" advise --trace "$t/x.json"
refuses 2 "limit is 10000" sweep --gpus 1,2,3,4,5,6,7,8,9,10 --batch 1,2,3,4,5,6,7,8,9,10 --bucket-cap-mb 1,2,3,4,5,6,7,8,9,10 --grad-accum 1,2,3,4,5,6,7,8,9,10,11,12
refuses 2 "\-\-gpus: 0 is out of range (1 to 256)" run --gpus 0
refuses 2 "\-\-gpus: 300 is out of range (1 to 256)" run --gpus 300
refuses 2 "\-\-warmup: 5 is out of range (0 to \-\-steps - 1, 2)" run --steps 3 --warmup 5
refuses 2 "\-\-steps: 0 is out of range (1 to 100000)" run --steps 0
refuses 2 "\-\-calibration/\-\-topology: only with \-\-emulate" run --calibration "$t/x"
refuses 2 "\-\-check-gradient: needs real compute" run --emulate --check-gradient
refuses 2 "unknown command 'frobnicate'" frobnicate
# outputs that cannot be written leave nothing (a missing folder: the flag's
# value is refused, 2)
refuses 2 "\-o $t/dir/none/out.csv" collective -o "$t/dir/none/out.csv"
refuses 2 "\-\-trace $t/dir/none/t.json" predict --gpus 8 --trace "$t/dir/none/t.json"
refuses 2 "\-o $t/dir/none/p" calibrate --import "$(dirname "$0")/data/nccl-tests-1x8.log" -o "$t/dir/none/p.calib"
if [ -z "$(ls -A "$t/dir")" ] && [ ! -e "$t/never.calib" ]; then ok; else ko "files left behind: $(ls -A "$t/dir")"; fi

# absent PATH...: none of them exists (nothing written, nothing left)
absent () {
  for p in "$@"; do
    if [ -e "$p" ] || [ -L "$p" ]; then ko "left behind: $p"; return; fi
  done
  ok
}
# chardev PATH: still the character device it was (never replaced by a file)
chardev () { if [ -c "$1" ]; then ok; else ko "$1 is no longer a character device: $(ls -l "$1")"; fi; }
root=no
[ "$(id -u)" = 0 ] && root=yes
have_gnuplot=no
command -v gnuplot >/dev/null && have_gnuplot=yes

# --- inputs that exhaust or hang: only regular files of at most 64 MiB are read,
# checked before reading (a FIFO would block forever, /dev/zero never ends) ---
mkfifo "$t/fifo" "$t/fifo.csv"
truncate -s 65M "$t/big.topo" "$t/big.csv"
refuses 1 "fifo: is a FIFO, not a file" topo "$t/fifo"
refuses 1 "/dev/zero: is a character device, not a file" topo /dev/zero
refuses 1 "big.topo: 68157440 bytes, larger than the 64 MiB" topo "$t/big.topo"
refuses 1 "/dev/zero: is a character device" predict --model /dev/zero
refuses 1 "fifo: is a FIFO" predict --model "$t/fifo"
refuses 1 "fifo.csv: is a FIFO" predict --model "$t/fifo.csv"
refuses 1 "big.csv: 68157440 bytes, larger than the 64 MiB" predict --model "$t/big.csv"
refuses 1 "/dev/zero: is a character device" predict --calibration /dev/zero
refuses 1 "fifo: is a FIFO" collective --calibration "$t/fifo"
refuses 1 "big.topo: 68157440 bytes" sweep --calibration "$t/big.topo"
refuses 1 "/dev/zero: is a character device, not a log" calibrate --import /dev/zero -o "$t/never.calib"
refuses 1 "fifo: is a FIFO, not a log" calibrate --import "$t/fifo" -o "$t/never.calib"
refuses 1 "big.topo: 68157440 bytes" calibrate --import "$t/big.topo" -o "$t/never.calib"
refuses 1 "/dev/zero: is a character device, not a CSV file" plot /dev/zero
refuses 1 "fifo.csv: is a FIFO, not a CSV file" plot "$t/fifo.csv"
refuses 1 "big.csv: 68157440 bytes" plot "$t/big.csv"
printf '[1,2,3]\n' >"$t/arr.json"
refuses 1 "arr.json: not a JSON object (a Hugging Face config.json is one" predict --model "$t/arr.json"
# a CSV of a kind dpscale writes, its rows checked before gnuplot reads
# them (whose errors name its script's line): the file, line and column
h=op,gpus,nodes,size_bytes,count_elements,time_s,time_us,algbw_GBps,busbw_GBps,algo,proto
printf '%s\nallreduce,16,2,eight,2,4.48e-05,44.8,0.1,0.2,tree,LL\n' "$h" >"$t/c1.csv"
printf '%s\nallreduce,16,2,8,2,-4.48e-05,44.8,0.1,0.2,tree,LL\n' "$h" >"$t/c2.csv"
printf '%s\nallreduce,16,2,0,2,4.48e-05,44.8,0.1,0.2,tree,LL\n' "$h" >"$t/c3.csv"
printf '%s\nallreduce,16,2,8,2\n' "$h" >"$t/c4.csv"
refuses 1 "c1.csv:2: size_bytes: 'eight' is not a number" plot "$t/c1.csv"
refuses 1 "c2.csv:2: time_s: -4.48e-05 is not a finite value of 0 or more" plot "$t/c2.csv"
refuses 1 "c3.csv:2: size_bytes: 0 is not a size above 0" plot "$t/c3.csv"
refuses 1 "c4.csv:2: 5 fields, the header has 11" plot "$t/c4.csv"
absent "$t/c1.png" "$t/c2.png" "$t/c3.png" "$t/c4.png"
# the same rows with CRLF line ends (a file passed through Windows) plot
if [ $have_gnuplot = yes ]; then
  "$bin" collective -g 8 --format csv 2>/dev/null | sed 's/$/\r/' >"$t/crlf.csv"
  "$bin" plot "$t/crlf.csv" >/dev/null 2>"$t/err" && [ -s "$t/crlf.png" ] && ok || ko "CRLF collective CSV: $(cat "$t/err")"
fi
"$bin" collective --compare "$(dirname "$0")/reference/nccl/aws-p5-2n-allreduce.ref" --format csv >"$t/cmp.csv" 2>/dev/null
refuses 1 "a collective --compare CSV: drawn by collective --compare --plot FILE" plot "$t/cmp.csv"
refuses 1 "/dev/null: is a character device" topo --topology /dev/null
absent "$t/never.calib" "$t/never.csv"

# --- writes that destroy: a regular file is replaced whole, a device or FIFO is
# written in place and never replaced, nothing is created beside a device ---
if [ $root = yes ]; then
  # private copies of /dev/null and /dev/full: a regression replaces these, not the system's
  mknod "$t/null" c 1 3 && mknod "$t/full" c 1 7
  null=$t/null full=$t/full
else
  null=/dev/null full=/dev/full
fi
log=$(cd "$(dirname "$0")" && pwd)/data/nccl-tests-1x8.log   # absolute: a symlink to it below must resolve from $t
# a log without a topology: the error names its GPUs and the shipped
# topologies with them (the log's Rank lines say NVIDIA H100 80GB HBM3)
# a test the model has no operation for: refused when alone, by its name
sed '1a # Collective test starting: alltoall_perf' "$log" >"$t/a2a.log"
refuses 1 "a2a.log: alltoall_perf, a test the model has no operation for" collective --compare "$t/a2a.log" --topology dgx-h100
refuses 1 "a2a.log: no all-reduce, all-gather or reduce-scatter table (alltoall_perf here): import all_reduce_perf's, all_gather_perf's or reduce_scatter_perf's output" calibrate --import "$t/a2a.log" -o "$t/a2a.calib"
cat "$t/a2a.log" "$t/a2a.log" >"$t/a2a2.log"
# V100 hosts of 8 against the 4-GPU trays of an NVL72 rack: the error alone, not the GPUs' note before it
refuses 1 "nccl-tests-2x8-old.log: hosts of 8 GPUs are neither nodes (72 GPUs) nor hosts (4 GPUs) of gb200-nvl72" collective --compare "$(dirname "$0")/data/nccl-tests-2x8-old.log" --topology gb200-nvl72
refuses 1 "a2a2.log: no table of all_reduce_perf, all_gather_perf, reduce_scatter_perf or broadcast_perf" collective --compare "$t/a2a2.log" --topology dgx-h100
refuses 1 "nccl-tests-1x8.log: no '#% topology:' line: give --topology (its GPUs, NVIDIA H100 80GB HBM3, are those of the shipped aws-p5, dgx-h100, dgx-h100-oversub2, gcp-a3-high, gcp-a3-mega, pcie-8x-h100)" collective --compare "$log"
refuses 1 "\-o $full: No space left on device" predict --gpus 8 -o "$full"
chardev "$full"
refuses 1 "\-\-trace $full: No space left on device" predict --gpus 8 --trace "$full"
chardev "$full"
refuses 1 "\-o $full: No space left on device" collective --gpus 8 -o "$full"
chardev "$full"
refuses 1 "\-o $full: No space left on device" calibrate --import "$log" -o "$full"
chardev "$full"
absent "$full.csv" "$full.png"
if "$bin" calibrate --import "$log" -o "$null" >"$t/out" 2>&1 && grep -q "no .csv or .png beside it" "$t/out"; then ok
else ko "calibrate -o $null: $(tail -1 "$t/out")"; fi
chardev "$null"
absent "$null.csv" "$null.png"
if "$bin" predict --gpus 8 -o "$null" >"$t/out" 2>&1; then ok; else ko "predict -o $null: $(cat "$t/out")"; fi
chardev "$null"
refuses 1 "\-o $null: is a character device, not a prefix of files" sweep --gpus 8,16 -o "$null"
absent "$null.csv" "$null.png" "$null.svg"
refuses 1 "\-o $null: is a character device, not a prefix of files" plot "$(dirname "$0")/data/nccl-tests-1x8.log" -o "$null"
refuses 1 "\-o $t/dir: is a directory, not a file to write" predict --gpus 8 -o "$t/dir"
refuses 1 "\-o $t/dir: is a directory, not a file to write" calibrate --import "$log" -o "$t/dir"
mkfifo "$t/out.fifo"
cat "$t/out.fifo" >"$t/from-fifo" &
if "$bin" predict --gpus 8 --format csv -o "$t/out.fifo" 2>"$t/err"; then ok; else ko "predict -o FIFO: $(cat "$t/err")"; fi
wait
if [ -p "$t/out.fifo" ] && grep -q "^model," "$t/from-fifo"; then ok; else ko "a FIFO as -o was replaced or not written"; fi
"$bin" predict --gpus 8 --format csv -o - >/dev/full 2>"$t/err"
if [ $? = 1 ] && grep -q "standard output: No space left on device" "$t/err"; then ok; else ko "predict >/dev/full: $(cat "$t/err")"; fi
# a regular file is replaced whole and keeps its mode; no temporary file is left
printf 'old\n' >"$t/keep.csv"; chmod 640 "$t/keep.csv"
"$bin" predict --gpus 8 --format csv -o "$t/keep.csv" >/dev/null 2>&1
if grep -q "^model," "$t/keep.csv" && [ "$(stat -c %a "$t/keep.csv")" = 640 ] && [ -z "$(ls -A "$t" | grep '^\.keep')" ]; then ok
else ko "-o over a regular file: $(ls -la "$t" | grep keep)"; fi
if [ $root = yes ]; then
  # a full small file system: every write fails whole, nothing is left, no "wrote"
  mkdir "$t/small"
  if mount -t tmpfs -o size=64k tmpfs "$t/small" 2>/dev/null; then
    trap 'umount "$t/small" 2>/dev/null; rm -rf "$tmp"' EXIT
    head -c 70000 /dev/zero >"$t/small/filler" 2>/dev/null
    refuses 1 "\-o $t/small/p.json: No space left on device" predict --gpus 8 --format json -o "$t/small/p.json"
    refuses 1 "\-o $t/small/sw.csv: No space left on device" sweep --gpus 8,16 -o "$t/small/sw"
    refuses 1 "\-o $t/small/p.calib\|\-o $t/small/p.csv" calibrate --import "$log" -o "$t/small/p.calib"
    refuses 1 "\-\-trace $t/small/t.json: No space left on device" predict --gpus 8 --trace "$t/small/t.json"
    if ! grep -q wrote "$t/out"; then ok; else ko "'wrote' printed on a full disk"; fi
    rm -f "$t/small/filler"
    # room for the CSV, not for the pictures: no cut picture, no "wrote" for one, exit 1
    head -c 36000 /dev/zero >"$t/small/filler"
    if [ $have_gnuplot = yes ]; then
      "$bin" sweep --gpus 8,16 -o "$t/small/sw" >"$t/out" 2>"$t/err"
      got=$?
      # (the CSV and, when it fits, the plot's data blocks, sw.dat: whole files)
      if [ $got = 1 ] && grep -q "wrote $t/small/sw.csv\(, $t/small/sw.dat\)\{0,1\}$" "$t/out" && grep -q "cut short\|No space" "$t/err"; then ok
      else ko "sweep on a nearly full disk -> $got: $(tail -1 "$t/out") / $(cat "$t/err")"; fi
    fi
    rm -f "$t/small/filler" "$t/small/sw.csv" "$t/small/sw.dat"
    absent "$t/small/p.json" "$t/small/sw.png" "$t/small/sw.svg" "$t/small/p.calib" "$t/small/t.json"
    if [ -z "$(ls -A "$t/small")" ]; then ok; else ko "left on the full disk: $(ls -A "$t/small")"; fi
    umount "$t/small"
  fi
fi

# --- a shell behind gnuplot: no user text reaches gnuplot as code ---
if [ $have_gnuplot = yes ]; then
  "$bin" sweep --gpus 8,16 -o "$t/sw" >/dev/null 2>&1
  (cd "$t" && "$bin" plot sw.csv --title 'x`touch P1`'"'; system('touch P2'); '" >/dev/null 2>"$t/err")
  if [ -f "$t/sw.png" ] && [ -f "$t/sw.svg" ]; then ok; else ko "plot with a quoted title wrote nothing: $(cat "$t/err")"; fi
  cp "$t/sw.csv" "$t/a\`touch P3\`'b.csv"
  (cd "$t" && "$bin" plot "a\`touch P3\`'b.csv" -o '|touch P5' >/dev/null 2>"$t/err")
  if [ -f "$t/|touch P5.png" ]; then ok; else ko "plot -o '|touch P5' did not write the file named so: $(cat "$t/err")"; fi
  cp "$t/sw.csv" "$t/<touch P6"
  (cd "$t" && "$bin" plot "<touch P6" -o pic >/dev/null 2>"$t/err")
  (cd "$t" && "$bin" sweep --gpus 8,16 -o 'sw`touch P7`' >/dev/null 2>"$t/err")
  absent "$t/P1" "$t/P2" "$t/P3" "$t/P4" "$t/P5" "$t/P6" "$t/P7" P1 P2 P3 P4 P5 P6 P7
  refuses 1 "a file name with a control character cannot be given to gnuplot" plot "$t/sw.csv" -o "$t/bad
name"
  absent "$t/bad
name.png"
fi

# --- bad values taken as good: a flag's zero is not its absence; every value
# out of range is refused up front, naming the flag (exit 2) ---
refuses 2 "\-\-nodes: 0 is out of range (at least 1)" predict --nodes 0
refuses 2 "\-\-nodes: -2 is out of range" predict --nodes -2
refuses 2 "\-\-nodes: 0 is out of range (at least 1)" sweep --nodes 0
refuses 2 "\-\-nodes: sweep takes GPU counts" sweep --nodes 4
refuses 2 "\-\-gpus: '0' is not a whole number from 1 to 131072" sweep --gpus 0
refuses 2 "\-\-gpus: 0 is out of range (2 to 32768)" collective --gpus 0
refuses 2 "\-\-gpus: 1 is out of range (2 to 32768)" collective --gpus 1
refuses 2 "\-\-nodes/--per-node: a collective needs 2 GPUs or more" collective --nodes 1 --per-node 1
refuses 2 "\-\-nodes: 0 is out of range (at least 1)" collective --nodes 0
refuses 2 "\-\-channels: 0 is out of range (1 to 64)" collective --channels 0
refuses 2 "\-\-channels: 65 is out of range (1 to 64)" collective --channels 65
refuses 2 "\-\-gpus: 0 is out of range (1 to 131072)" topo --gpus 0
refuses 2 "\-\-nodes: -3 is out of range (at least 1)" topo --nodes -3
refuses 2 "\-\-global-batch: 0 is out of range (1 to 1000000000)" predict --global-batch 0
refuses 2 "\-\-global-batch: 100.5 is not a whole number" predict --global-batch 100.5
refuses 2 "\-\-global-batch: nan is out of range" sweep --global-batch nan
refuses 2 "\-\-efficiency: 0 is out of range (more than 0, at most 1)" predict --efficiency 0
refuses 2 "\-\-efficiency: nan is out of range" predict --efficiency nan
refuses 2 "\-\-efficiency: 1.5 is out of range" sweep --efficiency 1.5
refuses 2 "\-\-slow-factor: 0 is out of range" predict --slow-replicas 1 --slow-factor 0
refuses 2 "\-\-slow-factor: -1 is out of range" predict --slow-factor -1
refuses 2 "\-\-loader-rate: 0 is out of range" predict --loader-rate 0
refuses 2 "\-\-loader-rate: inf is out of range" predict --loader-rate inf
refuses 2 "\-\-batch: 0 is out of range (1 to 1048576)" calibrate --batch 0
refuses 2 "\-\-batch: -5 is out of range" calibrate --batch -5
refuses 2 "\-\-link-gbps: 0 is out of range" calibrate --link-gbps 0
refuses 2 "\-\-gpus: -1 is out of range (1 to 256)" run --gpus -1
refuses 2 "\-\-lr: nan is out of range" run --lr nan
refuses 2 "\-\-lr: -1 is out of range" run --lr -1
refuses 2 "\-\-lr: 0 is out of range" run --lr 0
refuses 2 "\-\-timeout: 0 is out of range" run --timeout 0
refuses 2 "\-\-timeout: nan is out of range" run --timeout nan
refuses 2 "\-\-timeout: -inf is out of range" run --timeout -inf
refuses 2 "\-\-link-gbps: nan is out of range" run --link-gbps nan
refuses 2 "\-\-first-bucket-mb: -1 is out of range (at least 0" run --first-bucket-mb -1
refuses 2 "\-\-first-bucket-mb: -1 is out of range (at least 0" predict --first-bucket-mb -1
refuses 2 "\-\-timeout: 0 is out of range" validate --timeout 0
refuses 2 "\-\-global-batch: 0 is out of range" validate --global-batch 0
# a global batch that some replica count cannot split evenly: refused before any work, not rounded
refuses 2 "\-\-global-batch: 10 samples do not split evenly over \-\-gpus 4" validate --global-batch 10 --gpus 1,4
refuses 2 "\-\-global-batch: 2 samples do not split evenly over \-\-gpus 4" validate --global-batch 2 --gpus 4
refuses 2 "\-\-first-bucket-mb: -1 is out of range" validate --first-bucket-mb -1
refuses 2 "\-\-jitter: nan is out of range" validate --jitter nan
refuses 2 "\-\-timeout: nan is out of range" calibrate --timeout nan
# a zero or -1 is a value, checked, never "not given" (each was taken as absence)
refuses 2 "\-\-contention: -1 is out of range" predict --contention -1
refuses 2 "\-\-trials: 0 is out of range" predict --trials 0
refuses 2 "\-\-seed: -1 is out of range" sweep --seed -1
refuses 2 "\-\-price-per-gpu-hour: 0 is out of range" advise --price-per-gpu-hour 0
refuses 2 "\-\-critical-batch: 0 is out of range" predict --critical-batch 0 --steps-to-target 100
refuses 2 "\-\-seed: -1 is out of range" run --seed -1
refuses 2 "\-\-gap-ms: -1 is out of range (at least 0, at most 10000)" calibrate --gap-ms -1
refuses 2 "\-\-gap-ms: 'soon' is not a number of ms or 'step'" calibrate --gap-ms soon
refuses 2 "\-\-check: 2 is out of range (0 to 1)" collective -c 2
# emulated nodes: 0 is a value (it was their absence, and started the run)
refuses 2 "\-\-nodes: 0 is out of range (at least 1)" run --nodes 0
refuses 2 "\-\-nodes: 0 is out of range (at least 1)" validate --nodes 0
refuses 2 "\-\-nodes: 0 is out of range (at least 1)" calibrate --nodes 0
# neither clamped nor ignored: slow replicas past the replicas, a slow
# factor without slow replicas, --list with a topology
refuses 2 "\-\-slow-replicas: 100 of only 8 replicas" predict --gpus 8 --slow-replicas 100
refuses 2 "\-\-slow-factor: only with \-\-slow-replicas" predict --slow-factor 2
refuses 2 "\-\-list: lists the shipped topologies" topo --list extra
refuses 2 "\-\-stepfactor: 2000001 is out of range (more than 1, at most 1000000)" collective -f 2000001
# CPU calibration that would run for hours: the estimate, before any work
refuses 2 "\-\-sizes/\-\-gpus: 1881 sizes x 6 rank counts x 3 collectives would take about" calibrate --backend cpu --sizes 8:1G:1.01 --gpus 2,4,8,16,32,64 -o "$t/never.calib"
# FP8 where the GPU has no FP8 tensor cores (Ampere), or a precision unknown
refuses 2 "\-\-precision: fp8: the A100 SXM4 80GB has no FP8 tensor cores" predict -t dgx-a100 --precision fp8
refuses 2 "\-\-precision: 'fp4' is not amp, bf16, bf16-pure, bf16-deepspeed, fp8 or fp32" predict --precision fp4
# DeepSpeed's BF16_Optimizer is its ZeRO 0/1 path only
refuses 2 "\-\-precision bf16-deepspeed: DeepSpeed's BF16_Optimizer runs only with \-\-strategy ddp or zero1, not fsdp" predict --precision bf16-deepspeed --strategy fsdp
refuses 2 "\-\-precision bf16-deepspeed: DeepSpeed's BF16_Optimizer runs only with \-\-strategy ddp or zero1, not fsdp" sweep --gpus 8 --precision bf16-deepspeed --strategy ddp,fsdp
refuses 2 "\-\-fp8-all-gather: with \-\-precision fp8 and a strategy that gathers parameters" predict --fp8-all-gather --strategy fsdp
refuses 2 "\-\-fp8-all-gather: with \-\-precision fp8 and a strategy that gathers parameters" predict --fp8-all-gather --precision fp8
# emulated links too slow for the run's all-reduces: the estimate, before any work
refuses 2 "\-\-link-gbps: 20 steps of MLP 1024x4's 16.8 MB all-reduce over 1e-06 Gbit/s links would take about 5373952 s" run --nodes 2 --link-gbps 1e-6
# a bound past what a timer holds is refused, not wrapped into an instant stop
refuses 2 "\-\-timeout: 1e+20 is out of range" calibrate --timeout 1e20
refuses 2 "\-\-bucket-cap-mb: inf is out of range" validate --bucket-cap-mb inf
# a reference header that says its topology twice: neither is guessed
sed 's/^#% topology: aws-p5$/#% topology: aws-p5\n#% topology: dgx-h100/' "$(dirname "$0")/reference/nccl/aws-p5-2n-allreduce.ref" >"$t/twice.ref"
refuses 1 "twice.ref:[0-9]*: '#% topology:' given twice (first on line [0-9]*)" collective --compare "$t/twice.ref"
# a profile whose network fit names a topology that is not there: said of the profile, not of a
# --topology nobody gave
"$bin" calibrate --import "$(dirname "$0")/data/nccl-tests-1x8.log" --topology dgx-h100 -o "$t/h.calib" >/dev/null 2>&1
sed 's/^topology=dgx-h100$/topology=nosuch/' "$t/h.calib" >"$t/nosuch.calib"
refuses 1 "nosuch.calib: its network fit's topology: no file 'nosuch'" predict --calibration "$t/nosuch.calib"
# a profile fitted on one topology applied to another: taken, and said (it was silent)
"$bin" predict --calibration "$t/h.calib" --topology dgx-a100 --gpus 16 >/dev/null 2>"$t/err"
if grep -q "h.calib was fitted on dgx-h100: its network multipliers are applied to dgx-a100's figures" "$t/err"; then ok
else ko "no note for a dgx-h100 profile on dgx-a100: $(cat "$t/err")"; fi
"$bin" predict --calibration "$t/h.calib" --topology dgx-h100 --gpus 16 >/dev/null 2>"$t/err"
if [ ! -s "$t/err" ]; then ok; else ko "a note for a profile on its own topology: $(cat "$t/err")"; fi
# a per-layer CSV that is not UTF-8: refused at its line (its names would reach the JSON trace)
printf 'layer,params,forward_ms,backward_ms\nfc\377\376,10,1,2\n' >"$t/latin.csv"
refuses 1 "latin.csv:2: not UTF-8 text" predict --model "$t/latin.csv" --gpus 8
# one log given twice to --compare (by name, or by another spelling): its rows would count twice
p5="$(dirname "$0")/reference/nccl/aws-p5-2n-allreduce.ref"
refuses 2 "\-\-compare: .*aws-p5-2n-allreduce.ref given twice" collective --compare "$p5" "$p5"
ln -s "$(cd "$(dirname "$p5")" && pwd)/aws-p5-2n-allreduce.ref" "$t/p5-link.ref"
refuses 2 "\-\-compare: .*p5-link.ref is .*aws-p5-2n-allreduce.ref again" collective --compare "$p5" "$t/p5-link.ref"
# two outputs naming one file: the second would replace the first
refuses 2 "\-\-trace $t/same.json: also -o's path" predict --gpus 8 -o "$t/same.json" --trace "$t/same.json"
[ ! -e "$t/same.json" ] && ok || ko "a refused pair of outputs wrote $t/same.json"
# work past a minute, from the first trial's time: refused with the estimate (--yes runs it)
refuses 2 "\-\-trials: 100000 trials of 4096 GPUs would take about [0-9]* s (one took .*--yes" predict --gpus 4096 --trials 100000 --jitter 0.05
# empty lists, entries and values: refused by the flag, before any work
refuses 2 "\-\-gpus: empty value" sweep --gpus ""
refuses 2 "\-\-gpus: an empty entry in '8,,16'" sweep --gpus 8,,16
refuses 2 "\-\-import: empty path" calibrate --import ""
refuses 2 "\-\-calibration: empty path" predict --calibration " "
# a topology that does not exist: refused before the first point or calibration
refuses 2 "\-\-topology: no file 'nosuch'" sweep --topology dgx-h100,nosuch
refuses 2 "\-\-topology: no file 'nosuch'" validate --emulate --topology nosuch
# flags that would change nothing are refused, not ignored: validate's
# --topology without --emulate, collective --compare's -f and -d (the
# log sets the sizes); a model the runner cannot split, before any work
refuses 2 "\-\-topology: only with --emulate" validate --topology dgx-a100
refuses 2 "\-\-compare: the log sets .*-f/-d" collective --compare "$(dirname "$0")/reference/nccl/aws-p5-2n-allreduce.ref" -f 4
refuses 2 "\-\-tp: MLP 1024x4: not a GPT-2 stack" validate --tp 2 -M mlp
# outputs checked before any work: a missing folder is named at once (every
# output flag of every command: tests/test-outputs.sh)
refuses 2 "\-o $t/none/x.csv: its directory does not exist" predict --gpus 8 -o "$t/none/x.csv"
refuses 2 "\-\-trace $t/none/t.json: its directory does not exist" predict --gpus 8 --trace "$t/none/t.json"
refuses 2 "\-o $t/none/steps.csv: its directory does not exist" run -o "$t/none/steps.csv"
refuses 2 "\-\-trace $t/none/t.json: its directory does not exist" run --trace "$t/none/t.json"
absent "$t/none"
# no output holds NaN or infinity: a model of no parameters is refused
printf 'layer,params,forward_ms,backward_ms\nfc,0,1,2\n' >"$t/zero.csv"
refuses 1 "zero.csv: params: every layer has 0 parameters" predict --model "$t/zero.csv" --gpus 8 --format json
# a profile's numbers in range: a correction of 1e300 is no fit
"$bin" calibrate --import "$log" -o "$t/p.calib" >/dev/null 2>&1
sed 's/^correction=[0-9.e+-]*;/correction=1e300;/' "$t/p.calib" >"$t/corr.calib"
refuses 1 "corr.calib:18: \[fit.8.1\] correction: entry 1: 1e+300 is out of range (0.001 to 1000)" predict --calibration "$t/corr.calib"
sed 's/^bw_GBps=.*/bw_GBps=1e300;/' "$t/p.calib" >"$t/bw.calib"
refuses 1 "bw.calib:15: \[fit.8.1\] bw_GBps: 1e+300 is out of range" collective --calibration "$t/bw.calib"

# --- messages: a failing mpirun shows its cause, not only its last line ---
mkdir -p "$t/bin"
printf '#!/bin/sh\necho ------------------\necho "There are not enough slots available in the system"\necho "to satisfy the 2 slots requested"\necho ------------------\necho "the last line"\nexit 1\n' >"$t/bin/mpirun"
chmod +x "$t/bin/mpirun"
PATH=$t/bin:$PATH "$bin" run --steps 2 --warmup 1 >/dev/null 2>"$t/err"
got=$?
# (the first line is run's own progress line)
if [ $got = 1 ] && tail -1 "$t/err" | grep -q "mpirun failed (exit status 1): There are not enough slots available.* / the last line"; then ok
else ko "failing mpirun -> $got: $(cat "$t/err")"; fi

# --- messages: a UTF-8 byte order mark is not text (editors on Windows write one) ---
bom=$(printf '\357\273\277')
printf "$bom$good_topo" >"$t/bom.topo"
printf '%slayer,params,forward_ms,backward_ms\nfc,10,1,2\n' "$bom" >"$t/bom.csv"
printf '%s[model]\nname = x\narchitecture = mlp\nwidths = 10,20,10\n' "$bom" >"$t/bom.model"
{ printf '%s' "$bom"; cat "$t/p.calib"; } >"$t/bom.calib"
for args in "topo $t/bom.topo" "predict --model $t/bom.csv --gpus 8" "predict --model $t/bom.model --gpus 8" \
            "predict --calibration $t/bom.calib"; do
  if "$bin" $args >/dev/null 2>"$t/err"; then ok; else ko "with a byte order mark: dpscale $args: $(cat "$t/err")"; fi
done
if [ $have_gnuplot = yes ]; then
  { printf '%s' "$bom"; cat "$t/sw.csv"; } >"$t/bom-sweep.csv"
  if "$bin" plot "$t/bom-sweep.csv" >/dev/null 2>"$t/err"; then ok; else ko "plot of a CSV with a byte order mark: $(cat "$t/err")"; fi
fi
# refused before any work: a model CPU replicas cannot hold or step in time (GPT-2 XL at batch 8 is
# hundreds of GB and of TFLOP), within seconds, not after minutes of all-reduce timing
refuses 2 "\-\-model: .*GPT-2 XL at batch 8" calibrate --model gpt2-xl --quick -o "$t/never.calib"
refuses 2 "\-\-model: .*BERT-Large" calibrate --model bert-large --quick -o "$t/never.calib"
refuses 2 "\-\-model: .*GPT-2 XL at batch 32" validate --model gpt2-xl --quick -o "$t/never"
absent "$t/never.calib" "$t/never.csv"

# --- logs taken on trust: wrong results and repeats are not fitted, a log is counted once ---
# a row of wrong results times a broken all-reduce: left out with a warning naming its line
sed '/^ *8388608 /s/ 0$/ 3/' "$log" >"$t/wrong.log"
refuses 0 "wrong.log:27: 1 row with a non-zero #wrong count (the first here): left out of the fit" \
  calibrate --import "$t/wrong.log" -o "$t/w.calib"
if grep -q ",8388608," "$t/w.csv"; then ko "a row of wrong results was fitted: $(grep 8388608 "$t/w.csv")"; else ok; fi
sed 's/ 0$/ 1/' "$log" >"$t/allwrong.log"
refuses 1 "allwrong.log:17: every result row has a non-zero #wrong count" calibrate --import "$t/allwrong.log" -o "$t/never.calib"
# a log that lists a rank twice (rank 6's line says 5): fitted as 7 ranks before; refused at its line
sed '11s/Rank  6/Rank  5/' "$log" >"$t/rank2.log"
refuses 1 "rank2.log:11: rank 5 is listed twice (first on line 10)" calibrate --import "$t/rank2.log" -o "$t/never.calib"
# a row of size 0 or time 0 times nothing: left out, and said (it was dropped silently)
sed '17s/^           8             2     float     sum      -1    70.00/           0             0     float     sum      -1     0.00/' "$log" >"$t/zero.log"
refuses 0 "zero.log:17: 1 row of size 0 or time 0 (the first here): nothing timed, left out of the fit" \
  calibrate --import "$t/zero.log" -o "$t/z.calib"
# a row pasted twice would weigh twice: the repeat (line 24 of line 23's 32768 bytes) is left out
sed '/^ *32768 /p' "$log" >"$t/rep.log"
refuses 0 "rep.log:24: repeats the row of line 23 (1 repeated row): left out of the fit" \
  calibrate --import "$t/rep.log" -o "$t/r.calib"
if [ "$(grep -c ",32768," "$t/r.csv")" = 1 ]; then ok; else ko "a repeated row was fitted twice: $(grep -c ",32768," "$t/r.csv")"; fi
# the same log twice, by its name, by another name, or copied: refused
ln -sf "$log" "$t/link.log"
cp "$log" "$t/copy.log"
refuses 2 "\-\-import: $log given twice" calibrate --import "$log" --import "$log" -o "$t/never.calib"
refuses 2 "\-\-import: $t/link.log is the same file as $log" calibrate --import "$log" --import "$t/link.log" -o "$t/never.calib"
refuses 2 "\-\-import: $t/copy.log holds the same rows as $log" calibrate --import "$log" --import "$t/copy.log" -o "$t/never.calib"
absent "$t/never.calib" "$t/never.csv"
# a reference's header counts stand for Rank lines not pasted: a count
# that is not one is refused at its line, one past what is simulated
# refused before any fit (it took minutes, then memory, unrefused)
printf '#%% ranks: many\n' | cat - "$log" >"$t/notcount.ref"
refuses 1 "notcount.ref:1: '#% ranks: many' is not a count" calibrate --import "$t/notcount.ref" -o "$t/never.calib"
printf '#%% ranks: 1048576\n#%% nodes: 131072\n' | cat - "$log" >"$t/huge.ref"
refuses 1 "huge.ref: 1048576 ranks: at most 131072 GPUs are simulated" calibrate --import "$t/huge.ref" -o "$t/never.calib"
absent "$t/never.calib" "$t/never.csv"
# without --topology the import takes the cluster a reference names
# ('#% topology:'): one that names none that exists, or two references
# naming two clusters (one profile describes one), are refused before any fit
printf '#%% topology: nosuch\n' | cat - "$log" >"$t/nosuch.ref"
refuses 1 "nosuch.ref: '#% topology: nosuch' is neither a shipped topology nor a file: give --topology" \
  calibrate --import "$t/nosuch.ref" -o "$t/never.calib"
printf '#%% topology: hgx-b200\n' | cat - "$log" >"$t/b200.ref"
printf '#%% topology: dgx-h100\n' | cat - "$log" | sed 's/^\( *1024 \)/\1 /' >"$t/h100.ref"
refuses 2 "b200.ref names topology hgx-b200, $t/h100.ref names dgx-h100: import each on its own, or give --topology" \
  calibrate --import "$t/b200.ref" --import "$t/h100.ref" -o "$t/never.calib"
absent "$t/never.calib" "$t/never.csv"

# --- a profile of another machine judges nothing here: validate refuses it before any work ---
c=$(dirname "$0")/fuzz/corpus/profile/cpu-quick.calib
sed "s/^host=.*/host=dpscale-other-host/;s/^name=.*/name=dpscale-other-host/" "$c" >"$t/other.calib"
sed "s/^host=.*/host=$(hostname)/;s/^name=.*/name=$(hostname)/;s/^backend=cpu-mpi/backend=gpu-nccl/" "$c" >"$t/gpu.calib"
refuses 1 "other.calib: calibrated on host 'dpscale-other-host', not on this one" validate --calibration "$t/other.calib" -o "$t/never"
refuses 1 "gpu.calib: a GPU profile (gpu-nccl), and validate runs CPU replicas (\-\-backend cpu)" \
  validate --calibration "$t/gpu.calib" -o "$t/never"
refuses 1 "p.calib: imported nccl-tests logs, not a calibration of this machine" validate --calibration "$t/p.calib" -o "$t/never"
absent "$t/never.calib" "$t/never.csv" "$t/never.png"

finish bad-inputs

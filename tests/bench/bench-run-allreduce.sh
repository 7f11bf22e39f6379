#!/bin/sh
# Benchmark: does the runner add time of its own to the collectives?
# For each replica count, the buckets' all-reduce inside an emulated run
# (`dpscale run --emulate`, each bucket timed from the last replica's
# arrival to the last finish, median after warm-up) against the same sizes
# timed in isolation by `dpscale calibrate` the way DDP issues them: handed
# to a communication thread after one step of compute without
# communication (--gap-ms -1), waiting as the emulator does.  Prints one
# row per bucket (medians over ROUNDS calibrations and runs: both vary from
# one to the next on a shared machine) and one for the step's buckets
# together; efficiency = isolated / in-run time (the target: at least 90%).
#
#   [ROUNDS=3] tests/bench/bench-run-allreduce.sh [BUILD_DIR] [REPLICAS...]   (default: build 2 4 16)
set -eu
rounds=${ROUNDS:-3}
build=${1:-build}
[ $# -gt 0 ] && shift
reps=${*:-2 4 16}
dps="$build/dpscale"
[ -x "$dps" ] || { echo "bench-run-allreduce: no $dps (build first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# the buckets of the default model (sizes from a 1-replica run)
"$dps" run --emulate --ranks 1 --steps 4 --warmup 1 --format json >"$tmp/one.json" 2>/dev/null
sizes=$(awk '/"buckets_bytes"/ {on=1; next} on && /\]/ {exit} on {gsub(/[ ,]/, ""); printf "%s%.0f", sep, $0; sep=","}' "$tmp/one.json")

printf '%8s %6s %12s %13s %12s %13s\n' replicas bucket size_bytes isolated_ms in_run_ms efficiency_%
for n in $reps; do
  : >"$tmp/iso$n"
  : >"$tmp/run$n"
  for round in $(seq "$rounds"); do
    echo "bench-run-allreduce: $n replicas, round $round of $rounds: calibrating $sizes, then an emulated run ..." >&2
    "$dps" calibrate --ranks "$n" --sizes "$sizes" --gap-ms -1 --emulated-waits -o "$tmp/c.calib" >/dev/null 2>&1
    "$dps" run --emulate --ranks "$n" --steps 20 -C "$tmp/c.calib" --format json >"$tmp/r.json" 2>/dev/null
    # isolated: the calibration's busbw back to time (a ring moves 2(n-1)/n of the bytes)
    awk -F, -v n="$n" 'NR > 1 && $1 == n { f = n > 1 ? 2 * (n - 1) / n : 1; printf "%s %.9g\n", $3, $3 * f / ($4 * 1e9) }' \
      "$tmp/c.csv" >>"$tmp/iso$n"
    awk '/"buckets_bytes"/ {k=1; next} /"buckets_allreduce_median_s"/ {k=2; next} /\]/ {k=0}
         k == 1 {gsub(/[ ,]/, ""); b[++nb] = $0} k == 2 {gsub(/[ ,]/, ""); t[++nt] = $0}
         END {for (i = 1; i <= nb; i++) printf "%d %.0f %.9g\n", i - 1, b[i], t[i]}' "$tmp/r.json" >>"$tmp/run$n"
  done
  # the median over rounds of each, per bucket
  sort -k1,1n -k2,2g "$tmp/iso$n" | awk '{v[$1] = v[$1] " " $2} END {for (k in v) {m = split(v[k], a, " "); print k, a[int((m + 1) / 2)]}}' >"$tmp/isom"
  sort -k1,1n -k3,3g "$tmp/run$n" | awk '{v[$1] = v[$1] " " $3; s[$1] = $2} END {for (k in v) {m = split(v[k], a, " "); print k, s[k], a[int((m + 1) / 2)]}}' \
    | sort -n >"$tmp/runm"
  awk -v n="$n" 'NR == FNR {iso[$1] = $2; next}
       {i = iso[$2]; ti += i; tr += $3
        printf "%8d %6d %12.0f %13.3f %12.3f %13.1f\n", n, $1, $2, i * 1e3, $3 * 1e3, ($3 > 0 ? 100 * i / $3 : 0)}
       END {printf "%8d %6s %12s %13.3f %12.3f %13.1f\n", n, "all", "", ti * 1e3, tr * 1e3, (tr > 0 ? 100 * ti / tr : 0)}' \
    "$tmp/isom" "$tmp/runm"
done

#!/bin/sh
# Benchmark: does the runner add time of its own to the collectives?
# For each replica count, the buckets' all-reduce inside an emulated run
# (`dpscale run --emulate`, each bucket timed from the last replica's
# arrival to the last finish, median after warm-up) against the same sizes
# timed in isolation by `dpscale calibrate` the way DDP issues them: handed
# to a communication thread after one step of compute without
# communication (--gap-ms -1), waiting as the emulator does.
#
# Both sides vary by a fifth or more from one calibration to the next on a
# shared machine, so each round calibrates and then runs at once, and the
# efficiency (isolated / in-run time; the target: at least 90%) is taken
# per round: the table gives the median over ROUNDS rounds of the two times
# and of the rounds' efficiencies, with the lowest and highest round.
#
# Two configurations per replica count:
#   buckets  the default model's DDP buckets (1 MiB first bucket, 25 MiB cap):
#            bucket 0 overlaps the rest of backward, bucket 1 follows it;
#   one      the same gradients in one bucket (caps of 1000 MiB), launched
#            when backward ends: no second collective before or after it,
#            so what differs from the isolated timing is the runner alone.
#
#   [ROUNDS=5] tests/bench/bench-run-allreduce.sh [BUILD_DIR] [REPLICAS...]   (default: build 2 4 16)
set -eu
rounds=${ROUNDS:-5}
build=${1:-build}
[ $# -gt 0 ] && shift
reps=${*:-2 4 16}
dps="$build/dpscale"
[ -x "$dps" ] || { echo "bench-run-allreduce: no $dps (build first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# the buckets of the default model (sizes from a 1-replica run), and all of
# them as one
"$dps" run --emulate --ranks 1 --steps 4 --warmup 1 --format json >"$tmp/one.json" 2>/dev/null
sizes=$(awk '/"buckets_bytes"/ {on=1; next} on && /\]/ {exit} on {gsub(/[ ,]/, ""); printf "%s%.0f", sep, $0; sep=","}' "$tmp/one.json")
total=$(echo "$sizes" | tr ',' '\n' | awk '{s += $1} END {printf "%.0f", s}')

# "BUCKET BYTES SECONDS" per bucket of a run's JSON
buckets () {
  awk '/"buckets_bytes"/ {k=1; next} /"buckets_allreduce_median_s"/ {k=2; next} /\]/ {k=0}
       k == 1 {gsub(/[ ,]/, ""); b[++nb] = $0} k == 2 {gsub(/[ ,]/, ""); t[++nt] = $0}
       END {for (i = 1; i <= nb; i++) printf "%d %.0f %.9g\n", i - 1, b[i], t[i]}' "$1"
}

printf '%8s %8s %6s %12s %12s %10s %13s %15s\n' replicas config bucket size_bytes isolated_ms in_run_ms \
  efficiency_% rounds_min-max_%
for n in $reps; do
  : >"$tmp/rows"
  for round in $(seq "$rounds"); do
    echo "bench-run-allreduce: $n replicas, round $round of $rounds: calibrating $sizes,$total, then two emulated runs ..." >&2
    "$dps" calibrate --ranks "$n" --sizes "$sizes,$total" --gap-ms -1 --emulated-waits -o "$tmp/c.calib" >/dev/null 2>&1
    # isolated: the calibration's busbw back to time (a ring moves 2(n-1)/n of the bytes)
    awk -F, -v n="$n" 'NR > 1 && $1 == n { f = n > 1 ? 2 * (n - 1) / n : 1; printf "%s %.9g\n", $3, $3 * f / ($4 * 1e9) }' \
      "$tmp/c.csv" >"$tmp/iso"
    "$dps" run --emulate --ranks "$n" --steps 20 -C "$tmp/c.calib" --format json >"$tmp/r.json" 2>/dev/null
    "$dps" run --emulate --ranks "$n" --steps 20 -C "$tmp/c.calib" --bucket-cap-mb 1000 --first-bucket-mb 1000 \
      --format json >"$tmp/r1.json" 2>/dev/null
    # one row per round and bucket: round config bucket bytes isolated_s in_run_s
    { buckets "$tmp/r.json" | sed 's/^/buckets /'; buckets "$tmp/r1.json" | sed 's/^/one /'; } \
      | awk -v r="$round" 'NR == FNR {iso[$1] = $2; next} {printf "%d %s %s %s %s %s\n", r, $1, $2, $3, iso[$3], $4}' \
        "$tmp/iso" - >>"$tmp/rows"
  done
  # per configuration and bucket, and for the default buckets together
  # (per round, their sums): medians of the times and of the rounds'
  # efficiencies, and the lowest and highest round
  awk '$2 == "buckets" {i[$1] += $5; t[$1] += $6} {print $2, $3, $4, $5, $6}
       END {for (r in i) print "buckets", "all", 0, i[r], t[r]}' "$tmp/rows" | awk -v n="$n" '
    function median(s,   a, m, i, j, x) {
      m = split(s, a, " ")
      for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
      lo = a[1]; hi = a[m]
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    { k = $1 " " $2; if (!(k in size)) order[++nk] = k; size[k] = $3
      iso[k] = iso[k] " " $4; run[k] = run[k] " " $5; eff[k] = eff[k] " " ($5 > 0 ? 100 * $4 / $5 : 0) }
    END { for (i = 1; i <= nk; i++) { k = order[i]; split(k, c, " ")
            mi = median(iso[k]); mr = median(run[k]); me = median(eff[k])
            printf "%8d %8s %6s %12s %12.3f %10.3f %13.1f %7.0f-%-7.0f\n", n, c[1], c[2],
                   (size[k] > 0 ? sprintf("%.0f", size[k]) : ""), mi * 1e3, mr * 1e3, me, lo, hi } }'
done

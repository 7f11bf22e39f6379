#!/bin/sh
# Text from files and users reaches gnuplot as text, never as code: every
# plot dpscale draws (plots/*.gp through sweep, plot, calibrate, collective
# --compare --plot and predict --plot) is drawn with backquotes, quotes,
# system(...), $(...), a macro (@title) and newlines in every text that can
# reach it (topology and GPU names, model names, titles, CSV cells, system
# names of references, the output's own name, the temporary folder).  Each
# hostile piece would create a marker file in $m (dpscale's working folder)
# if gnuplot ran it; none may appear.  Each command draws its pictures (exit 0, PNG and SVG whole), or
# refuses in one line with nothing left behind; no temporary file is left.
# Usage: test-plot-text.sh DPSCALE_BINARY
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli-lib.sh"
command -v gnuplot >/dev/null || { echo "plot-text: gnuplot not installed: skipped"; exit 77; }
t=$tmp
m=$t/marks
mkdir "$m" "$t/out" "$t/tmp"
# the hostile text: each piece would touch its own marker, were it code
evil="B\`touch $m/backquote\` S'; system('touch $m/system'); print 'Q \$(touch $m/dollar) D\"\`touch $m/dq\`\" @title"
# in a key file a newline is written \n (and in sed's replacement \\n)
evil_kf="$evil\\nsecond line \`touch $m/newline\`"
evil_sed=$(printf '%s' "$evil_kf" | sed 's/\\/\\\\/g')
evil_nl="$evil
second line \`touch $m/newline\`"
evil_csv=$(printf '%s' "$evil" | tr -d ',')   # a CSV cell holds no comma

# a topology and a model named so (and a GPU model, in predict's title)
sed -e "s|^name = DGX H100|name = $evil_sed|" -e "s|^model = H100 SXM5|model = G $evil_sed|" \
  "$here/../topologies/dgx-h100.topo" >"$t/evil.topo"
printf '[model]\nname = %s\narchitecture = mlp\nwidths = 64,64,64\n' "$evil_kf" >"$t/evil.model"

# nothing ran: no marker anywhere
no_marks () {
  if [ -z "$(ls -A "$m")" ] && [ -z "$(ls -A "$t/out" | grep -v '^[^.]' )" ]; then ok
  else ko "$1: gnuplot ran text as code or left a temporary file: $(ls -A "$m") $(ls -A "$t/out" | grep '^\.')"; fi
  if [ -z "$(ls -A "$t/tmp")" ]; then ok; else ko "$1: left in TMPDIR: $(ls -A "$t/tmp")"; fi
}
# drawn FILE...: the command (already run, status $got) drew whole pictures,
# or refused in one line and wrote none of them
drawn () {
  what=$1
  shift
  if [ "$got" = 0 ]; then
    for f in "$@"; do
      case $f in
        *.png) [ "$(head -c 4 "$f" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] && ok || ko "$what: $f is no PNG" ;;
        *.svg) tail -c 16 "$f" 2>/dev/null | grep -q '</svg>' && ok || ko "$what: $f is no whole SVG" ;;
        *) [ -s "$f" ] && ok || ko "$what: $f missing" ;;
      esac
    done
  else
    if [ "$(wc -l <"$t/err")" -eq 1 ]; then ok; else ko "$what: refused in $(wc -l <"$t/err") lines: $(cat "$t/err")"; fi
    for f in "$@"; do if [ -e "$f" ]; then ko "$what: refused, yet $f is left"; else ok; fi; done
  fi
  no_marks "$what"
}
# run ARGS...: dpscale in $m, so that a file name's relative "touch NAME" would mark there
run () { (cd "$m" && TMPDIR=$t/tmp "$bin" "$@" >"$t/stdout" 2>"$t/err"); got=$?; }

# sweep.gp through sweep: topology names, the model's name, the title they make
run sweep -t "$t/evil.topo,dgx-h100" --model "$t/evil.model" --gpus 8,16 -o "$t/out/sweep"
[ "$got" = 0 ] && ok || ko "sweep of hostile names -> $got: $(cat "$t/err")"
drawn sweep "$t/out/sweep.csv" "$t/out/sweep.dat" "$t/out/sweep.png" "$t/out/sweep.svg"
# the series' names are in the data, as written: one block each
if grep -q "^# series 1: .*touch $m/backquote" "$t/out/sweep.dat"; then ok; else ko "series name not in sweep.dat"; fi
# and an output named so
run sweep -t "$t/evil.topo,dgx-h100" --gpus 8,16 -o "$t/out/o\`touch prefix\`'q"
drawn "sweep -o hostile" "$t/out/o\`touch prefix\`'q.png" "$t/out/o\`touch prefix\`'q.svg"

# sweep.gp through plot: CSV cells (model, topology), the title, with a newline
awk -F, -v OFS=, -v e="$evil_csv" 'NR > 1 && NR <= 3 { $1 = "M " e; $2 = "T " e } { print }' \
  "$t/out/sweep.csv" >"$t/out/cells.csv"
rm -f "$t/out"/sweep.* "$t/out"/o*
run plot "$t/out/cells.csv" --title "$evil_nl" -o "$t/out/cells"
[ "$got" = 0 ] && ok || ko "plot of hostile cells -> $got: $(cat "$t/err")"
drawn "plot sweep CSV" "$t/out/cells.dat" "$t/out/cells.png" "$t/out/cells.svg"

# validation.gp and breakdown.gp: a validation CSV, a text column beside
v="replicas,meas_median_s,meas_p10_s,meas_p90_s,pred_mean_s,pred_p5_s,pred_p95_s,meas_eff,pred_eff,error_pct,inside"
v="$v,meas_compute_s,meas_exposed_s,meas_opt_s,meas_other_s,pred_compute_s,pred_exposed_s,pred_opt_s,pred_straggler_s,note $evil_csv"
{ echo "$v"
  echo "1,0.1,0.09,0.11,0.1,0.09,0.11,1,1,0,1,0.08,0,0.01,0.01,0.08,0,0.01,0.01,$evil_csv"
  echo "2,0.12,0.11,0.13,0.11,0.1,0.12,0.83,0.9,-8,0,0.08,0.02,0.01,0.01,0.08,0.01,0.01,0.01,$evil_csv"; } >"$t/out/val.csv"
run plot "$t/out/val.csv" --title "$evil_nl"
drawn "plot validation" "$t/out/val.png" "$t/out/val.svg"
run plot "$t/out/val.csv" --breakdown --title "$evil"
drawn "plot --breakdown" "$t/out/val-breakdown.png" "$t/out/val-breakdown.svg"
# timeline.gp
{ echo "source,lane,start_ms,end_ms,kind,note"
  echo "1,0,0,10,0,$evil_csv"; echo "1,-1,5,12,1,$evil_csv"; echo "0,0,0,11,0,$evil_csv"; echo "0,-2,11,13,2,x"; } >"$t/out/tl.csv"
run plot "$t/out/tl.csv" --title "$evil"
drawn "plot timeline" "$t/out/tl.png" "$t/out/tl.svg"
# collective.gp: its text cells (op, algo, proto)
"$bin" collective --format csv -e 64K >"$t/coll.csv"
awk -F, -v OFS=, -v e="$evil_csv" 'NR > 1 && NR % 2 { $1 = e; $11 = e } { print }' "$t/coll.csv" >"$t/out/coll.csv"
run plot "$t/out/coll.csv" --title "$evil_nl"
drawn "plot collective" "$t/out/coll.png" "$t/out/coll.svg"

# calibration.gp through calibrate (the output's name) and through plot (the title)
log=$here/data/nccl-tests-1x8.log
run calibrate --import "$log" -o "$t/out/c\`touch calib\`'.calib"
[ "$got" = 0 ] && ok || ko "calibrate -o hostile name -> $got: $(cat "$t/err")"
drawn "calibrate" "$t/out/c\`touch calib\`'.png" "$t/out/c\`touch calib\`'.csv"
cp "$t/out/c\`touch calib\`'.csv" "$t/out/cal.csv"
run plot "$t/out/cal.csv" --title "$evil_nl"
drawn "plot calibration" "$t/out/cal.png" "$t/out/cal.svg"

# compare-sizes.gp and compare-suite.gp: references whose system names are hostile
sed "1s|.*|#% system: $evil_csv|" "$here/reference/nccl/aws-p5-2n-allreduce.ref" >"$t/a.ref"
sed "1s|.*|#% system: 2 $evil_csv|" "$here/reference/nccl/dell-xe9680-h100-ib-2n-allreduce.ref" >"$t/b.ref"
run collective --compare "$t/a.ref" --plot "$t/out/one.png"
[ "$got" = 0 ] && ok || ko "compare one -> $got: $(cat "$t/err")"
drawn "compare one" "$t/out/one.png"
run collective --compare "$t/a.ref" "$t/b.ref" --plot "$t/out/two.svg"
[ "$got" = 0 ] && ok || ko "compare two -> $got: $(cat "$t/err")"
drawn "compare two" "$t/out/two.svg"
# the temporary folder itself named so (the data file's path reaches gnuplot)
mkdir "$t/tmp/d\`touch tmpdir\`'q"
(cd "$m" && TMPDIR="$t/tmp/d\`touch tmpdir\`'q" "$bin" collective --compare "$t/a.ref" "$t/b.ref" \
   --plot "$t/out/three.png" >/dev/null 2>"$t/err"); got=$?
rmdir "$t/tmp/d\`touch tmpdir\`'q" 2>/dev/null || ko "compare left files in TMPDIR"
drawn "compare, hostile TMPDIR" "$t/out/three.png"

# step.gp through predict --plot: the model's name and the GPU's in its title
run predict --model "$t/evil.model" -t "$t/evil.topo" --gpus 8 --plot "$t/out/step.png"
[ "$got" = 0 ] && ok || ko "predict --plot -> $got: $(cat "$t/err")"
drawn "predict --plot" "$t/out/step.png"
run predict --model "$t/evil.model" -t "$t/evil.topo" --gpus 8 --plot "$t/out/s\`touch step\`'.svg"
drawn "predict --plot hostile name" "$t/out/s\`touch step\`'.svg"

# a name gnuplot cannot be given (a newline): refused in one line, nothing drawn
run plot "$t/out/coll.csv" -o "$t/out/bad
name"
if [ "$got" != 0 ]; then ok; else ko "a file name with a newline was drawn"; fi
drawn "plot -o with a newline" "$t/out/bad
name.png"
finish plot-text

# dpscale validate: one training step, predicted (upper rows) above
# measured (lower rows): compute per replica, the bucket all-reduces, the
# optimizer.  From PREFIX-timeline.csv: source (1 predicted, 0 measured),
# lane (replica 0..3, -1 all-reduces, -2 optimizer), start_ms, end_ms, kind
# (0 compute, 1 communication, 2 optimizer).
# Variables (gnuplot -e): datafile, outfile (.png or .svg), title.
if (!exists("datafile")) datafile = "dpscale-validation-timeline.csv"
if (!exists("outfile")) outfile = "dpscale-validation-timeline.png"
if (!exists("title")) title = "one step: predicted above, measured below"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,480 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,480 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set title title
set xlabel "time in the step (ms)"
set style fill solid 0.85 border lc rgb "#333333"
set grid xtics lc rgb "#dddddd"
set key outside right top box
# rows, bottom up: measured optimizer, all-reduces, replicas 0..; then the
# predicted ones; only the replica lanes that have a row (up to 4 each)
stats datafile using ($1 == 0 && $2 > 0 ? $2 : 0) nooutput
nm = int(STATS_max) + 1
stats datafile using ($1 == 1 && $2 > 0 ? $2 : 0) nooutput
np = int(STATS_max) + 1
base = nm + 3
row(src, lane) = src * base + lane + 2
set ytics ("measured optimizer" 0, "measured all-reduce" 1, "predicted optimizer" base, "predicted all-reduce" base + 1)
do for [i = 0:nm - 1] { set ytics add (sprintf(i == 0 ? "measured replica %d" : "replica %d", i) 2 + i) }
do for [i = 0:np - 1] { set ytics add (sprintf(i == 0 ? "predicted replica %d" : "replica %d", i) base + 2 + i) }
set yrange [-0.8:base + np + 1.8]
set arrow from graph 0, first base - 1 to graph 1, first base - 1 nohead dt 2 lc rgb "#777777"
plot datafile using (($3+$4)/2):($5 == 0 ? row($1, $2) : NaN):(($4-$3)/2):(0.35) with boxxyerror lc rgb "#1f77b4" title "compute", \
     datafile using (($3+$4)/2):($5 == 1 ? row($1, $2) : NaN):(($4-$3)/2):(0.35) with boxxyerror lc rgb "#d62728" title "all-reduce (bucket)", \
     datafile using (($3+$4)/2):($5 == 2 ? row($1, $2) : NaN):(($4-$3)/2):(0.35) with boxxyerror lc rgb "#2ca02c" title "optimizer"

# dpscale calibrate: measured against fitted bus bandwidth by message size,
# one colour per operation and rank count (points measured, lines fitted;
# open points were held out of the fit).
# Variables (gnuplot -e): datafile (the calibration CSV), outfile (.png or .svg), title.
if (!exists("datafile")) datafile = "profile.csv"
if (!exists("outfile")) outfile = "profile.png"
if (!exists("title")) title = "collective calibration"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,540 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,540 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set key top left box opaque
set title title
set logscale x 2
set xlabel "message size (bytes, as nccl-tests counts them)"
set ylabel "bus bandwidth (GB/s)"
set grid xtics ytics lc rgb "#dddddd"
set format x "%.0b %BB"
# the series: an operation and a rank count each, groups="allreduce/2 allgather/4"
if (!exists("groups")) groups = "allreduce/2 allreduce/4"
opof(g) = g[1:strstrt(g, "/") - 1]
rof(g) = g[strstrt(g, "/") + 1:] + 0
# the op column (8; 0 for a CSV written before it, of all-reduces)
if (!exists("opcolumn")) opcolumn = 8
opcol(x) = opcolumn > 0 ? strcol(opcolumn) : "allreduce"
is(g) = opcol(0) eq opof(g) && $1 == rof(g)
name(g) = sprintf("%s, %d ranks", opof(g) eq "allreduce" ? "all-reduce" : opof(g) eq "allgather" ? "all-gather" \
                  : "reduce-scatter", rof(g))

# columns: ranks, nodes, size_bytes, measured_busbw_GBps, fitted_busbw_GBps, held_out, error_pct, op
# one key entry a series (its line); what the points are, in the title
set title title . "\n{/*0.85 points measured (filled: fitted, open: held out); lines: the profile}"
plot for [i=1:words(groups)] datafile using (is(word(groups, i)) && $6 == 0 ? $3 : NaN):4 \
         with points pt 7 ps 1.2 lc i notitle, \
     for [i=1:words(groups)] datafile using (is(word(groups, i)) && $6 == 1 ? $3 : NaN):4 \
         with points pt 6 ps 1.4 lc i notitle, \
     for [i=1:words(groups)] datafile using (is(word(groups, i)) ? $3 : NaN):5 \
         with lines lw 2 lc i title name(word(groups, i))

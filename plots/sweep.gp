# dpscale sweep: throughput and scaling efficiency against GPU count.
# Variables (gnuplot -e): datafile (dpscale sweep CSV), outfile (.png or .svg), title.
if (!exists("datafile")) datafile = "dpscale-sweep.csv"
if (!exists("outfile")) outfile = "dpscale-sweep.png"
if (!exists("title")) title = "dpscale sweep"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,540 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,540 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set key bottom right box opaque
set title title
set logscale x 2
set logscale y 2
set xlabel "GPUs (one replica each)"
set ylabel "throughput (samples/s)"
set y2label "scaling efficiency (%)"
set y2range [0:110]
set ytics nomirror
set y2tics 0,20,100
set grid xtics ytics lc rgb "#dddddd"
set format x "%g"

# ideal: the first point's throughput per GPU, times the GPU count
stats datafile using 3:21 every ::0::0 nooutput
ideal_per_gpu = STATS_max_y / STATS_max_x

plot datafile using 3:21 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "predicted throughput", \
     datafile using 3:($3 * ideal_per_gpu) with lines dt 2 lw 1.5 lc rgb "#555555" title "ideal (linear)", \
     datafile using 3:($19 * 100) axes x1y2 with linespoints lw 2 pt 5 lc rgb "#d62728" title "scaling efficiency (right axis)"

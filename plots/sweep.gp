# dpscale sweep: throughput and scaling efficiency against GPU count, one
# series per topology (and per strategy, tp, pp, bucket cap, batch or
# accumulation where the sweep varies them); a point whose memory does not
# fit the GPU is ringed in red.
# Variables (gnuplot -e): datafile (the sweep's PREFIX.dat: the CSV's rows
# without its header, one block per series, blocks apart by two blank lines,
# so that series i is "index i-1"), outfile (.png or .svg), title, nseries
# and series (an array of the series' names, the legend).
if (!exists("datafile")) datafile = "dpscale-sweep.dat"
if (!exists("outfile")) outfile = "dpscale-sweep.png"
if (!exists("title")) title = "dpscale sweep"
if (!exists("nseries")) { nseries = 1; array series[1] = ["predicted"] }

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,540 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,540 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set key bottom right box opaque noenhanced
set title title noenhanced
set logscale x 2
set logscale y 2
set xlabel "GPUs"
set ylabel "throughput (samples/s)"
set y2label "scaling efficiency (%)"
set y2range [0:110]
set ytics nomirror
set y2tics 0,20,100
set grid xtics ytics lc rgb "#dddddd"
set format x "%g"

# ideal, per series: its first point's throughput per GPU times the GPU count
array ideal[nseries]
do for [i=1:nseries] {
  stats datafile index (i-1) using 3:21 every ::0::0 nooutput
  ideal[i] = STATS_max_y / STATS_max_x
}

# any point that does not fit (column 24, fits, is 0)?
stats datafile using 24 nooutput
nofit = (STATS_min == 0) ? "does not fit in GPU memory (ringed)" : ""

# columns as in the CSV: 3 gpus, 19 efficiency, 21 samples_per_s, 24 fits
plot for [i=1:nseries] datafile index (i-1) using 3:21 with linespoints lw 2 pt 7 lc i title series[i], \
     for [i=1:nseries] datafile index (i-1) using 3:($24 == 0 ? $21 : 1/0) with points pt 6 ps 2.2 lw 2 lc rgb "#d62728" notitle, \
     for [i=1:nseries] datafile index (i-1) using 3:($3 * ideal[i]) with lines dt 2 lw 1 lc i notitle, \
     for [i=1:nseries] datafile index (i-1) using 3:($19 * 100) axes x1y2 with linespoints dt 3 lw 1.5 pt 5 ps 0.7 lc i notitle, \
     keyentry with lines dt 2 lc rgb "#555555" title "ideal (linear), dashed", \
     keyentry with linespoints dt 3 pt 5 lc rgb "#555555" title "scaling efficiency (right axis), dotted", \
     keyentry with points pt 6 ps 2.2 lw 2 lc rgb "#d62728" title nofit

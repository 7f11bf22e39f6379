# dpscale collective --compare LOG --plot: the model's bus bandwidth beside
# the measured one, by message size, for one log or reference.
# Variables (gnuplot -e): datafile, outfile (.png or .svg), title.
if (!exists("datafile")) datafile = "compare.csv"
if (!exists("outfile")) outfile = "compare.png"
if (!exists("title")) title = "collective model against measured"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,540 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,540 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set title title noenhanced
set key top left box opaque
set logscale x 2
set format x "%.0b %BB"
set xlabel "message size (bytes per rank, nccl-tests' convention)"
set ylabel "bus bandwidth (GB/s)"
set grid xtics ytics lc rgb "#dddddd"
# columns: 1 file, 2 system, 3 op, 4 ranks, 5 hosts, 6 nodes, 7 size_bytes, 8 measured_us, 9 predicted_us,
#          10 measured_busbw_GBps, 11 predicted_busbw_GBps, 12 algo, 13 proto, 14 error_pct
plot datafile using 7:10 with linespoints lw 2 pt 7 lc rgb "#222222" title "measured", \
     datafile using 7:11 with linespoints lw 2 pt 6 dt 2 lc rgb "#1f77b4" title "dpscale model"

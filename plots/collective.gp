# dpscale collective --format csv: bus bandwidth against message size,
# the algorithm NCCL's model picks marked by colour.
# Variables (gnuplot -e): datafile, outfile (.png or .svg), title.
if (!exists("datafile")) datafile = "collective.csv"
if (!exists("outfile")) outfile = "collective.png"
if (!exists("title")) title = "collective: bus bandwidth by message size"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,540 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,540 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set title title
set key top left box opaque
set logscale x 2
set format x "%.0b %BB"
set xlabel "message size (bytes per rank)"
set ylabel "bus bandwidth (GB/s)"
set grid xtics ytics lc rgb "#dddddd"
# columns: 1 op, 2 gpus, 3 nodes, 4 size_bytes, 5 count, 6 time_s, 7 time_us, 8 algbw_GBps, 9 busbw_GBps, 10 algo, 11 proto
plot datafile using 4:9 with lines lw 2 lc rgb "#999999" title "busbw", \
     datafile using 4:(strcol(10) eq "ring" ? $9 : NaN) with points pt 7 ps 1.1 lc rgb "#1f77b4" title "ring", \
     datafile using 4:(strcol(10) eq "tree" ? $9 : NaN) with points pt 5 ps 1.1 lc rgb "#ff7f0e" title "tree", \
     datafile using 4:(strcol(10) eq "nvls" ? $9 : NaN) with points pt 9 ps 1.3 lc rgb "#2ca02c" title "nvls", \
     datafile using 4:(strcol(10) eq "hier" ? $9 : NaN) with points pt 11 ps 1.3 lc rgb "#d62728" title "hier"

# Published summaries (tests/reference/summary: one bus bandwidth a run,
# where the author printed no table) against dpscale's prediction, one
# series per source and collective; on the diagonal the model is exact, the band is
# +-10%.  Written by plots/reference-summary.sh.
# Variables (gnuplot -e): datafile (CSV: file,line,label,op,size_bytes,
# measured_busbw_GBps,predicted_busbw_GBps,algo,error_pct), outfile (.png
# or .svg).
if (!exists("datafile")) datafile = "reference-summary.csv"
if (!exists("outfile")) outfile = "reference-summary.png"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,720 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,720 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set title "GB200 NVL72 trays: dpscale against published bus bandwidths (tests/reference/summary)" noenhanced
set key top left Left reverse noenhanced font ",10"
set xlabel "published bus bandwidth (GB/s)"
set ylabel "dpscale's bus bandwidth (GB/s)"
set grid xtics ytics lc rgb "#dddddd"
set size ratio -1
set xrange [100:1000]
set yrange [100:1000]
# one series per source and collective (GCP A4X's three; NVIDIA/nccl#1801's
# all-reduces across partitions, open triangles)
a4x = "gcp-a4x-gpu-tpu-pedia"
ops = "allreduce allgather reducescatter"
names = "'A4X all-reduce' 'A4X all-gather' 'A4X reduce-scatter'"
plot x with lines lc rgb "#888888" notitle, \
     1.1*x with lines dt 2 lc rgb "#bbbbbb" title "+-10%", 0.9*x with lines dt 2 lc rgb "#bbbbbb" notitle, \
     for [i=1:3] datafile using (strcol(1) eq a4x && strcol(4) eq word(ops, i) ? $6 : NaN):7 \
         with points lc i pt (i == 1 ? 7 : i == 2 ? 5 : 9) ps 1.1 title word(names, i), \
     datafile using (strcol(1) eq "gb200-nvl-partitions-nccl1801" ? $6 : NaN):7 \
         with points lc rgb "#d62728" pt 8 ps 1.6 lw 2 title "nccl#1801 partitions over InfiniBand, all-reduce"

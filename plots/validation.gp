# dpscale validate: predicted against measured scaling efficiency.
# Measured medians with p10-p90 bars, the prediction as a line with its
# 5-95% interval as a band, the ideal line; log2 x axis.
# Variables (gnuplot -e): datafile (the validation CSV), outfile (.png or .svg), title.
if (!exists("datafile")) datafile = "dpscale-validation.csv"
if (!exists("outfile")) outfile = "dpscale-validation.png"
if (!exists("title")) title = "dpscale validate"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,540 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,540 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set title title
set key bottom left box opaque
set logscale x 2
set xlabel "replicas (one MPI process each)"
set ylabel "scaling efficiency, T(1) / T(N)"
set yrange [0:1.15]
set grid xtics ytics lc rgb "#dddddd"
set format x "%g"

# columns: 1 replicas, 2 meas_median_s, 3 meas_p10_s, 4 meas_p90_s, 5 pred_mean_s,
# 6 pred_p5_s, 7 pred_p95_s, 8 meas_efficiency, 9 pred_efficiency
stats datafile using 2 every ::0::0 nooutput
t1m = STATS_min
stats datafile using 5 every ::0::0 nooutput
t1p = STATS_min

plot datafile using 1:(t1p / $7):(t1p / $6) with filledcurves lc rgb "#c6dbef" fs solid 0.6 title "predicted 5-95% interval", \
     datafile using 1:9 with linespoints lw 2 pt 5 lc rgb "#1f77b4" title "predicted (mean)", \
     datafile using 1:8:(t1m / $4):(t1m / $3) with yerrorbars pt 7 ps 1.3 lw 1.5 lc rgb "#d62728" title "measured (median, p10-p90)", \
     1 with lines dt 2 lc rgb "#555555" title "ideal"

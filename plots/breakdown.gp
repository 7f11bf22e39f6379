# dpscale validate: step-time breakdown, predicted (left bar) beside
# measured (right bar) for each replica count: compute, exposed
# communication, optimizer, and waiting (stragglers, the rest).
# Variables (gnuplot -e): datafile (the validation CSV), outfile (.png or .svg), title.
if (!exists("datafile")) datafile = "dpscale-validation.csv"
if (!exists("outfile")) outfile = "dpscale-validation-breakdown.png"
if (!exists("title")) title = "step-time breakdown"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,540 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,540 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set title title."\n{/*0.8 left bar predicted, right bar measured}"
set key outside right top box
set ylabel "time per step (ms)"
set xlabel "replicas"
set boxwidth 0.35
set style fill solid 0.85 border lc rgb "#333333"
set grid ytics lc rgb "#dddddd"
set yrange [0:*]
set xrange [-0.6:*]

# columns: 1 replicas, 12 meas_compute_s, 13 meas_exposed_s, 14 meas_optimizer_s, 15 meas_other_s,
# 16 pred_compute_s, 17 pred_exposed_s, 18 pred_optimizer_s, 19 pred_straggler_s
ms(x) = x * 1000
plot datafile using ($0 - 0.2):(ms($16+$17+$18+$19)):xtic(1) with boxes lc rgb "#9467bd" title "waiting (stragglers, other)", \
     datafile using ($0 - 0.2):(ms($16+$17+$18)) with boxes lc rgb "#2ca02c" title "optimizer", \
     datafile using ($0 - 0.2):(ms($16+$17)) with boxes lc rgb "#d62728" title "exposed communication", \
     datafile using ($0 - 0.2):(ms($16)) with boxes lc rgb "#1f77b4" title "compute", \
     datafile using ($0 + 0.2):(ms($12+$13+$14+$15)) with boxes lc rgb "#9467bd" notitle, \
     datafile using ($0 + 0.2):(ms($12+$13+$14)) with boxes lc rgb "#2ca02c" notitle, \
     datafile using ($0 + 0.2):(ms($12+$13)) with boxes lc rgb "#d62728" notitle, \
     datafile using ($0 + 0.2):(ms($12)) with boxes lc rgb "#1f77b4" notitle

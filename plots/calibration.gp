# dpscale calibrate: measured against fitted all-reduce bus bandwidth by
# message size, one colour per rank count (points measured, lines fitted;
# open points were held out of the fit).
# Variables (gnuplot -e): datafile (the calibration CSV), outfile (.png or .svg), title.
if (!exists("datafile")) datafile = "profile.csv"
if (!exists("outfile")) outfile = "profile.png"
if (!exists("title")) title = "all-reduce calibration"

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
set xlabel "message size (bytes per rank)"
set ylabel "bus bandwidth (GB/s)"
set grid xtics ytics lc rgb "#dddddd"
set format x "%.0b %BB"
# the rank counts measured, as words: ranks="2 4"
if (!exists("ranks")) ranks = "2 4"

# columns: ranks, nodes, size_bytes, measured_busbw_GBps, fitted_busbw_GBps, held_out, error_pct
plot for [i=1:words(ranks)] datafile using ($1 == word(ranks, i) + 0 && $6 == 0 ? $3 : NaN):4 \
         with points pt 7 ps 1.2 lc i title sprintf("%s ranks, measured", word(ranks, i)), \
     for [i=1:words(ranks)] datafile using ($1 == word(ranks, i) + 0 && $6 == 1 ? $3 : NaN):4 \
         with points pt 6 ps 1.4 lc i title sprintf("%s ranks, held out", word(ranks, i)), \
     for [i=1:words(ranks)] datafile using ($1 == word(ranks, i) + 0 ? $3 : NaN):5 \
         with lines lw 2 lc i title sprintf("%s ranks, fitted", word(ranks, i))

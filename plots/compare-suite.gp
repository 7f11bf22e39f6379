# dpscale collective --compare FILES --plot: predicted against measured bus
# bandwidth for every row of 64 KiB and more of several logs or published
# references; on the diagonal the model is exact, the band is +-20%.
# Variables (gnuplot -e): datafile, outfile (.png or .svg), title, nsystems
# and systems (an array of the systems' names, as column 2 holds them: one
# series each, the legend).
if (!exists("datafile")) datafile = "compare.csv"
if (!exists("outfile")) outfile = "compare.png"
if (!exists("title")) title = "collective model against published measurements"
if (!exists("nsystems")) { nsystems = 1; array systems[1] = ["measured"] }

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,720 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,720 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set title title noenhanced
set key outside right top Left reverse noenhanced font ",10"
set logscale xy 10
set xlabel "measured bus bandwidth (GB/s)"
set ylabel "dpscale's bus bandwidth (GB/s)"
set grid xtics ytics lc rgb "#dddddd"
set size ratio -1
set xrange [0.1:2000]
set yrange [0.1:2000]
# columns: 1 file, 2 system (a series each), ... 7 size_bytes, 10 measured_busbw_GBps, 11 predicted_busbw_GBps
# one series per system: gnuplot's 8 colours, then circles, squares and
# triangles (7, 5, 9), so that no two systems look alike
ptype(i) = ((i - 1) / 8) % 3 == 0 ? 7 : ((i - 1) / 8) % 3 == 1 ? 5 : 9
plot x with lines lc rgb "#888888" notitle, \
     1.2*x with lines dt 2 lc rgb "#bbbbbb" title "+-20%", 0.8*x with lines dt 2 lc rgb "#bbbbbb" notitle, \
     for [i=1:nsystems] datafile using (strcol(2) eq systems[i] && $7 >= 65536 ? $10 : NaN):11 \
         with points lc i pt ptype(i) ps 0.8 title systems[i]

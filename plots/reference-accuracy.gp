# How well dpscale predicts: for each reference suite and prediction, the
# fraction of its entries (y) within a given |error| (x), an empirical
# cumulative distribution.  Written by plots/reference-accuracy.sh.
# Variables (gnuplot -e): datafile (eight blocks two blank lines apart,
# one per series in the order of titles, each of rows "|error|_% share"
# rising from "0 0"), outfile (.png or .svg), titles (the series' legends,
# each in single quotes).
if (!exists("datafile")) datafile = "reference-accuracy.dat"
if (!exists("outfile")) outfile = "reference-accuracy.png"
if (!exists("titles")) titles = "collectives 'DDP scaling' 'DDP one GPU' 'DDP transfer' 'sharded scaling' 'sharded absolute' '3D scaling' '3D absolute'"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,600 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,600 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set title "dpscale against the published record (tests/reference): share of entries within an error" noenhanced
set key bottom right box opaque noenhanced font ",10"
set xlabel "|predicted / published - 1| (%)"
set ylabel "share of the suite's entries"
set grid xtics ytics lc rgb "#dddddd"
set xrange [0:50]
set yrange [0:1]
set xtics 5
set ytics 0.1
# scaling (from a table's own base row) solid, the rest dashed
dash(i) = (i == 1 || i == 2 || i == 5 || i == 7) ? 1 : 2
plot for [i=1:8] datafile index (i-1) using 1:2 with steps lw 2.5 dt dash(i) lc i title word(titles, i)

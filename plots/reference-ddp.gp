# The DDP training suite (tests/reference/ddp): dpscale's per-GPU
# throughput against the published one, one series per prediction
# ((a) scaling from the table's smallest run, (b) one GPU uncalibrated,
# (c) one GPU transferred from another generation); on the diagonal the
# model is exact, the band is +-15%.  Written by plots/reference-ddp.sh.
# Variables (gnuplot -e): datafile (CSV: kind,file,published,predicted),
# outfile (.png or .svg).
if (!exists("datafile")) datafile = "reference-ddp.csv"
if (!exists("outfile")) outfile = "reference-ddp.png"

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 900,720 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 900,720 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile columnheaders
set title "DDP training: dpscale against published throughput (tests/reference/ddp)" noenhanced
set key top left Left reverse noenhanced font ",10"
set logscale xy 10
set xlabel "published throughput per GPU (samples/s)"
set ylabel "dpscale's throughput per GPU (samples/s)"
set grid xtics ytics lc rgb "#dddddd"
set size ratio -1
set xrange [5:5000]
set yrange [5:5000]
kinds = "scaling uncalibrated transfer"
names = "'(a) scaling from the smallest run' '(b) one GPU, uncalibrated' '(c) one GPU, transferred between generations'"
plot x with lines lc rgb "#888888" notitle, \
     1.15*x with lines dt 2 lc rgb "#bbbbbb" title "+-15%", 0.85*x with lines dt 2 lc rgb "#bbbbbb" notitle, \
     for [i=1:3] datafile using (strcol(1) eq word(kinds, i) ? $3 : NaN):4 \
         with points lc i pt (i == 1 ? 7 : i == 2 ? 5 : 9) ps 0.9 title word(names, i)

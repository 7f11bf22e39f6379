# dpscale predict --plot: one simulated step as its schedule ran it.  Top:
# a lane per stream of each rank drawn (its compute; its communication
# streams, one a process group), each task a box coloured by what it is.
# Bottom: the memory each rank drawn holds through the step.
# From a data file of three blocks (index 0, 1, 2):
#   tasks:  lane, start_ms, end_ms, kind (0 forward, 1 backward,
#           2 recompute, 3 copies, 4 optimizer, 5 collective)
#   memory: rank, time_ms, GB
#   lanes:  lane, label (the lane's labels come from the data, not code)
# Variables (gnuplot -e): datafile, outfile (.png or .svg), title, nlanes,
# capacity_GB (the device's memory; optional).
if (!exists("datafile")) datafile = "dpscale-step.dat"
if (!exists("outfile")) outfile = "dpscale-step.png"
if (!exists("title")) title = "one step"
if (!exists("nlanes")) nlanes = 2

if (outfile[strlen(outfile)-2:] eq "svg") {
  set terminal svg size 1000,560 dynamic enhanced font "Helvetica,13" background rgb "white"
} else {
  set terminal pngcairo size 1000,560 enhanced font "Helvetica,12" background rgb "white"
}
set output outfile
set datafile separator ","
stats datafile index 0 using 3 nooutput
tmax = STATS_max
set xrange [0:tmax * 1.01]

set multiplot title title
set lmargin 30
set rmargin 24
set tmargin 3
# the lanes
set origin 0, 0.38
set size 1, 0.62
set style fill solid 0.9 noborder
set grid xtics lc rgb "#dddddd"
set yrange [-0.7:nlanes - 0.3]
set format x ""
set key outside right top box
set ytics nomirror
kinds = "forward backward recompute copies optimizer collective"
colours = "#1f77b4 #17becf #9467bd #ff7f0e #2ca02c #d62728"
plot datafile index 2 using (NaN):1:ytic(2) notitle, \
     for [k = 0:5] datafile index 0 using (($2+$3)/2):($4 == k ? $1 : NaN):(($3-$2)/2):(0.32) \
       with boxxyerror lc rgb word(colours, k + 1) title word(kinds, k + 1)
# the memory
set origin 0, 0
set size 1, 0.4
set tmargin 0
unset title
set format x "%g"
set xlabel "time in the step (ms)"
set ylabel "memory (GB)"
if (exists("capacity_GB")) { set yrange [0:capacity_GB * 1.1] } else { set yrange [0:*] }
set ytics auto
set grid ytics lc rgb "#dddddd"
if (exists("capacity_GB")) {
  plot datafile index 1 using 2:3 with steps lw 2 lc rgb "#444444" title "memory, rank 0", \
       capacity_GB with lines dt 2 lc rgb "#d62728" title "the GPU's"
} else {
  plot datafile index 1 using 2:3 with steps lw 2 lc rgb "#444444" title "memory, rank 0"
}
unset multiplot

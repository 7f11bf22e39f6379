/* calib-plot — the series of a calibration CSV (calibrate's, columns
 * ranks,nodes,size_bytes,measured_busbw_GBps,fitted_busbw_GBps,held_out,
 * error_pct,op) for plots/calibration.gp: one per operation and rank
 * count, in the order they first appear. */
#pragma once

#include <glib.h>

/* gnuplot's variables: groups="allreduce/2 allreduce/4 allgather/4" and
 * opcolumn, the op column's number (0 in a CSV written before it, whose
 * rows are all-reduces); only digits and an operation's letters reach
 * gnuplot.  A new string. */
char *dps_calib_plot_series (const char *csv);

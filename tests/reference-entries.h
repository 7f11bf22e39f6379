/* reference-entries.h — every entry a training reference test predicts,
 * as one row of a CSV that the accuracy picture reads
 * (plots/reference-accuracy.sh):
 *
 *   suite,prediction,table,gpus,error_pct,published,predicted
 *
 * suite: ddp, fsdp or parallel (the folder under tests/reference/);
 * prediction: the test's name for it (scaling, one-gpu, transfer,
 * absolute); error_pct: 100 (predicted / published - 1), for a scaling
 * entry of the ratio to its table's base row; published and predicted:
 * the throughput compared, per GPU in the table's unit (samples/s for
 * the DDP suite, tokens/s for the others), empty for a scaling entry of
 * the sharded and 3D suites (a ratio of ratios).  The DDP suite's picture
 * (plots/reference-ddp.sh) reads its rows from here too.  Rows are appended to the
 * file DPS_REFERENCE_ENTRIES names, with the header when the file is
 * empty; without that variable nothing is written. */
#ifndef DPS_TESTS_REFERENCE_ENTRIES_H
#define DPS_TESTS_REFERENCE_ENTRIES_H

void dps_ref_entry (const char *suite, const char *prediction, const char *table, int gpus, double error,
                    double published, double predicted);

#endif

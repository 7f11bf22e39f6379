/* Helpers shared by the unit tests. */
#pragma once

#include "sim/topo-load.h"
#include "sim/ddp.h"

#include <math.h>
#include <string.h>

/* One layer of 1e9 FLOPs: a 1000 x 1000 weight and a bias of 1000
 * (1,001,000 parameters). */
static inline DpsModel *
test_matrix_model (void)
{
  DpsModel *m = dps_model_new ("mat");
  dps_model_add_layer (m, "fc", 1e9, 0, 0);
  dps_model_add_tensor (m, "fc.weight", 1000, 1000);
  dps_model_add_vector (m, "fc.bias", 1000);
  return m;
}

/* A model of the zoo (sim/models/NAME.model or a generator's name);
 * aborts the test when it does not load.  The caller owns it. */
static inline DpsModel *
test_zoo (const char *name)
{
  g_autoptr (GError) e = NULL;
  DpsModel *m = dps_model_load (name, &e);
  g_assert_no_error (e);
  return m;
}

/* The relative difference of a from b (b nonzero). */
#define REL(a, b) (fabs ((a) - (b)) / fabs (b))

/* The spec of a shipped topology (topologies/NAME.topo); aborts the test
 * when it does not load.  The caller owns it. */
static inline DpsTopoSpec *
test_shipped_spec (const char *name)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *path = dps_topo_find (name, &e);
  g_assert_no_error (e);
  DpsTopoSpec *s = dps_topo_spec_load (path, &e);
  g_assert_no_error (e);
  return s;
}

/* A shipped topology for `nodes` nodes; aborts the test when it does not
 * load. */
static inline DpsTopo *
test_shipped_topo (const char *name, int nodes)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsTopoSpec) s = test_shipped_spec (name);
  DpsTopo *t = dps_topo_new (s, nodes, &e);
  g_assert_no_error (e);
  return t;
}

/* A topology for `nodes` nodes from the text of a .topo file (read as
 * `file_name`, which its errors would name); aborts the test when it does
 * not load. */
static inline DpsTopo *
test_topo_from_text (const char *file_name, const char *text, int nodes)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsTopoSpec) s = dps_topo_spec_load_data (file_name, text, -1, &e);
  g_assert_no_error (e);
  DpsTopo *t = dps_topo_new (s, nodes, &e);
  g_assert_no_error (e);
  return t;
}

/* Nodes of 8 GPUs on an NVSwitch, a NIC each: the DDP tests' cluster, with
 * the switch's and the NICs' bandwidth as given. */
static inline DpsTopo *
test_switch_topo (int nodes, double intra_GBps, double nic_Gbps)
{
  g_autofree char *text = g_strdup_printf (
    "[system]\nname = t\ngpus_per_node = 8\n"
    "[gpu]\nmodel = g\nbf16_tflops = 100\nfp32_tflops = 10\nmemory_GB = 80\nmemory_bw_GBps = 1000\n"
    "[intra]\nfabric = nvswitch\nbw_GBps = %g\npcie_GBps = %g\n"
    "[nic]\ncount = 8\nbw_Gbps = %g\nlatency_us = 0\ngpus = 0;1;2;3;4;5;6;7\n", intra_GBps, intra_GBps, nic_Gbps);
  return test_topo_from_text ("t.topo", text, nodes);
}

/* The DDP tests' configuration of m on all of t's GPUs: batch 8, buckets
 * of 4 MB (one layer's fp32 gradients of test_csv_model), no first
 * bucket, no trace, identical GPUs (the spread has its own test). */
static inline void
test_ddp_config (DpsDdpConfig *c, const DpsModel *m, const DpsTopo *t)
{
  dps_ddp_config_default (c);
  c->model = m;
  c->topo = t;
  c->n_gpus = dps_topo_n_gpus (t);
  c->batch = 8;
  c->bucket_cap_bytes = 4e6;
  c->first_bucket_bytes = 0;
  c->trace_replicas = 0;
  c->gpu_spread_cv = 0;
}

/* Simulates c into r; aborts the test when it fails. */
static inline void
test_ddp_run (const DpsDdpConfig *c, DpsDdpResult *r)
{
  g_autoptr (GError) e = NULL;
  g_assert_true (dps_ddp_simulate (c, r, &e));
  g_assert_no_error (e);
}

/* The forward and backward seconds of every layer of m, summed. */
static inline double
test_layers_s (const DpsModel *m)
{
  double s = 0;
  for (int i = 0; i < dps_model_n_layers (m); i++)
    s += dps_model_layer (m, i)->fwd_time_s + dps_model_layer (m, i)->bwd_time_s;
  return s;
}

/* A profiled model: 8 layers, 1M parameters each, forward 1 ms and
 * backward 2 ms per layer at batch 8 (24 ms of compute a step). */
static inline DpsModel *
test_csv_model (void)
{
  GString *s = g_string_new ("# batch: 8\nlayer,params,forward_ms,backward_ms\n");
  for (int i = 0; i < 8; i++)
    g_string_append_printf (s, "l%d,1000000,1,2\n", i);
  g_autoptr (GError) e = NULL;
  DpsModel *m = dps_model_load_csv_data ("m.csv", s->str, -1, &e);
  g_assert_no_error (e);
  g_string_free (s, TRUE);
  return m;
}

/* Collectives for free: no latency, no pipeline fill, no network overhead
 * (with a topology of huge bandwidth, no transfer time either). */
static inline void
test_free_comm_params (DpsDdpConfig *c)
{
  memset (c->coll.base_s, 0, sizeof c->coll.base_s);
  memset (c->coll.step_s, 0, sizeof c->coll.step_s);
  memset (c->coll.fill_bytes, 0, sizeof c->coll.fill_bytes);
  c->coll.net_overhead_s = c->coll.call_s = 0;
  c->coll.net_channel_Bps = 0;   /* no channel's ceiling */
}

/* A configuration of DDP's defaults for model m on gpus GPUs of topo at a
 * micro-batch of batch samples, analytical network, no trace: what the
 * reference suites predict their rows from. */
static inline void
test_reference_config (DpsDdpConfig *c, const DpsModel *m, const DpsTopo *topo, int gpus, double batch)
{
  dps_ddp_config_default (c);
  c->model = m;
  c->topo = topo;
  c->n_gpus = gpus;
  c->mode = DPS_MODE_ANALYTICAL;
  c->trace_replicas = 0;
  c->batch = batch;
}

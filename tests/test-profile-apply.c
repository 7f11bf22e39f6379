/* Unit tests of the bridge from a profile to the simulator
 * (calibrate/profile-apply.c): which topology a prediction runs on, when a
 * profile's collective figures are applied and what is said, and what a DDP
 * step takes from a profile. */
#include "calibrate/profile-apply.h"
#include "sim/coll-predict.h"
#include "sim/base/error.h"

#include <string.h>

#include "test-util.h"

/* A CPU profile of this kind of machine: a ring of 4 ranks at 2 us and
 * 5 GB/s, measured with 4 ranks at most, a hand-off of 30 us and a
 * contention of 0.2 (compute) and 0.3 (communication) at 4 ranks. */
static DpsProfile *
cpu_profile (void)
{
  DpsCalData *d = dps_cal_data_new ("cpu-mpi");
  for (double S = 1024; S <= 64e6; S *= 2)
    dps_cal_data_add (d, 4, 1, S, 6 * 2e-6 + 1.5 * S / 5e9, 0, 0);
  d->handoff_s = 30e-6;
  DpsProfile *p = dps_profile_new (d);
  g_assert_true (dps_fit_levels (p->data, &p->fit, NULL));
  p->machine_ranks = 4;
  p->path = g_strdup ("cpu.calib");
  DpsContention ct = { .ranks = 4, .compute = 0.2, .comm = 0.3, .copy_Bps = 5e9 };
  g_array_append_val (p->contention, ct);
  return p;
}

/* Without a profile: the named topology, else the fallback, as shipped. */
static void
test_no_profile (void)
{
  g_autofree char *note = NULL;
  g_autoptr (DpsTopoSpec) s = dps_profile_apply_spec (NULL, NULL, "dgx-a100", 0, 16, &note, NULL);
  g_autoptr (DpsTopoSpec) want = test_shipped_spec ("dgx-a100");
  g_assert_nonnull (s);
  g_assert_cmpstr (s->name, ==, want->name);
  g_assert_cmpfloat (s->nic_bw_Bps, ==, want->nic_bw_Bps);
  g_assert_null (note);
  g_assert_false (dps_profile_network_applies (NULL, "dgx-a100", NULL));
}

/* On its own machine (no topology named) the profile's fit is what the
 * simulator takes: a 1 MiB all-reduce at 4 ranks takes the fitted ring
 * time, 12 us + 1.5 MiB / 5 GB/s (the closed form the data was made of). */
static void
test_own_machine (void)
{
  g_autoptr (DpsProfile) p = cpu_profile ();
  g_autofree char *note = NULL;
  g_autoptr (DpsTopoSpec) s = dps_profile_apply_spec (p, NULL, "dgx-h100", 0, 4, &note, NULL);
  g_assert_nonnull (s);
  g_assert_cmpint (s->gpus_per_node, ==, 4);
  g_assert_null (note);
  g_autoptr (DpsTopo) t = dps_topo_new (s, 1, NULL);
  DpsCollParams params;
  guint am = DPS_NCCL_ALGOS, pm = DPS_ALL_PROTOS;
  dps_tune_params_nccl (&params);
  dps_profile_apply_coll (p, NULL, 4, 1, &params, &am, &pm, &note);
  g_assert_null (note);
  /* the measured latency holds a call's own cost and any hosts' skew */
  g_assert_cmpfloat (params.call_s, ==, 0);
  g_assert_cmpfloat (params.host_skew_s, ==, 0);
  DpsCollCtx ctx;
  DpsCollChoice c;
  double S = 1048576;
  g_assert_true (dps_coll_ctx_init (&ctx, t, &params, 4, DPS_OP_ALLREDUCE, S, NULL));
  g_assert_true (dps_coll_choose (&ctx, am, pm, &c, NULL));
  g_assert_cmpfloat (REL (c.time_s, 12e-6 + 1.5 * S / 5e9), <, 0.02);
  dps_plan_unref (c.plan);
}

/* A CPU profile's collectives describe no GPU cluster: on dgx-h100 they are
 * left out (the parameters stay NCCL's own, bit for bit) and the note says
 * so; a DDP step there takes neither its contention nor its waits' machine
 * (contention is measured on its own machine only). */
static void
test_cpu_profile_on_gpus (void)
{
  g_autoptr (DpsProfile) p = cpu_profile ();
  g_autofree char *note = NULL;
  DpsCollParams params, nccl;
  guint am = DPS_NCCL_ALGOS, pm = DPS_ALL_PROTOS;
  dps_tune_params_nccl (&params);
  dps_tune_params_nccl (&nccl);
  dps_profile_apply_coll (p, "dgx-h100", 16, 2, &params, &am, &pm, &note);
  g_assert_true (memcmp (&params, &nccl, sizeof params) == 0);
  g_assert_cmpuint (am, ==, DPS_NCCL_ALGOS);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "cpu.calib measured MPI ranks on CPU cores: its collective figures are not applied to dgx-h100"));

  g_autoptr (DpsModel) m = dps_model_load ("gpt2", NULL);
  g_autoptr (DpsTopo) t = test_shipped_topo ("dgx-h100", 2);
  DpsDdpConfig c;
  dps_ddp_config_default (&c);
  double contention = c.contention;
  g_clear_pointer (&note, g_free);
  g_assert_true (dps_profile_apply_ddp (p, "dgx-h100", m, t, 16, &c, &note, NULL));
  g_assert_cmpfloat (c.contention, ==, contention);
  g_assert_nonnull (note);
}

/* On its own machine a DDP step takes the measured contention at the ranks
 * per node and the hand-off, exactly. */
static void
test_ddp_own_machine (void)
{
  g_autoptr (DpsProfile) p = cpu_profile ();
  g_autoptr (DpsTopoSpec) s = dps_profile_apply_spec (p, NULL, "dgx-h100", 0, 4, NULL, NULL);
  g_autoptr (DpsTopo) t = dps_topo_new (s, 1, NULL);
  g_autoptr (DpsModel) m = dps_model_load ("mlp", NULL);
  DpsDdpConfig c;
  dps_ddp_config_default (&c);
  g_assert_true (dps_profile_apply_ddp (p, NULL, m, t, 4, &c, NULL, NULL));
  g_assert_cmpfloat (c.contention, ==, 0.2);
  g_assert_cmpfloat (c.contention_comm, ==, 0.3);
  g_assert_cmpfloat (c.launch_s, ==, 30e-6);
  g_assert_cmpfloat (c.compute.mem_efficiency, ==, 1);
}

/* One rank on its own machine, with no contention measured at one rank:
 * the device's memory bandwidth is the profile's one-rank copy (8 GB/s,
 * read and written bytes), which is what a rank reaches, so no efficiency
 * is applied to it (with 0.8, PyTorch's bucket copies of a validated job
 * came out 25% long); on a named GPU the default stays. */
static void
test_one_rank_copy (void)
{
  g_autoptr (DpsProfile) p = cpu_profile ();
  p->copy_bw_Bps = 8e9;
  g_autoptr (DpsTopoSpec) s = dps_profile_apply_spec (p, NULL, "dgx-h100", 0, 1, NULL, NULL);
  g_assert_cmpfloat (s->gpu.memory_bw_Bps, ==, 8e9);
  g_autoptr (DpsTopo) t = dps_topo_new (s, 1, NULL);
  g_autoptr (DpsModel) m = dps_model_load ("mlp", NULL);
  DpsDdpConfig c, d;
  dps_ddp_config_default (&c);
  dps_ddp_config_default (&d);
  g_assert_cmpfloat (c.compute.mem_efficiency, <, 1);   /* the default, what a named GPU keeps */
  g_assert_true (dps_profile_apply_ddp (p, NULL, m, t, 1, &c, NULL, NULL));
  g_assert_cmpfloat (c.compute.mem_efficiency, ==, 1);
  g_autoptr (DpsTopo) h = test_shipped_topo ("dgx-h100", 1);
  g_autofree char *note = NULL;
  g_assert_true (dps_profile_apply_ddp (p, "dgx-h100", m, h, 1, &d, &note, NULL));
  DpsDdpConfig def;
  dps_ddp_config_default (&def);
  g_assert_cmpfloat (d.compute.mem_efficiency, ==, def.compute.mem_efficiency);
}

/* More ranks than the machine measured, with no network fit to carry them:
 * refused, naming the quantity (the command line names its flag). */
static void
test_beyond_measured (void)
{
  g_autoptr (DpsProfile) p = cpu_profile ();
  g_autoptr (GError) e = NULL;
  g_assert_null (dps_profile_apply_spec (p, NULL, "dgx-h100", 0, 16, NULL, &e));
  g_assert_nonnull (e);
  g_assert_true (g_str_has_prefix (e->message, "GPU count: 16 ranks asked for, but the calibrated machine (cpu.calib) "
                                   "was measured with up to 4"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/profile-apply/no-profile", test_no_profile);
  g_test_add_func ("/profile-apply/own-machine", test_own_machine);
  g_test_add_func ("/profile-apply/cpu-profile-on-gpus", test_cpu_profile_on_gpus);
  g_test_add_func ("/profile-apply/ddp-own-machine", test_ddp_own_machine);
  g_test_add_func ("/profile-apply/one-rank-copy", test_one_rank_copy);
  g_test_add_func ("/profile-apply/beyond-measured", test_beyond_measured);
  return g_test_run ();
}

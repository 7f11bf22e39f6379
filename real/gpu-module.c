/* gpu-module.c — see gpu-module.h. */
#include "real/gpu-module.h"
#include "dps-config.h"

#include <dlfcn.h>

#define MODULE_NAME "dpscale-gpu.so"

static void *handle;
static char *load_error;

/* The module beside the running program, else one folder up. */
static void
load (void)
{
#if DPS_HAVE_NCCL
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = self ? g_path_get_dirname (self) : g_strdup (".");
  g_autofree char *up = g_path_get_dirname (dir);
  const char *dirs[] = { dir, up };
  for (gsize i = 0; i < G_N_ELEMENTS (dirs) && !handle; i++) {
    g_autofree char *path = g_build_filename (dirs[i], MODULE_NAME, NULL);
    if (!g_file_test (path, G_FILE_TEST_EXISTS))
      continue;
    handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      load_error = g_strdup_printf ("the GPU module %s does not load: %s", path, dlerror ());
      return;
    }
  }
  if (!handle)
    load_error = g_strdup_printf ("the GPU module %s is not beside %s (a broken install?)", MODULE_NAME,
                                 self ? self : "dpscale");
#else
  load_error = g_strdup ("this dpscale was built without CUDA and NCCL");
#endif
}

gpointer
dps_gpu_module_symbol (const char *name, char **why)
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    load ();
    g_once_init_leave (&once, 1);
  }
  gpointer f = handle ? dlsym (handle, name) : NULL;
  if (!f && why)
    *why = handle ? g_strdup_printf ("the GPU module has no %s (built from other sources?)", name)
                  : g_strdup (load_error);
  return f;
}

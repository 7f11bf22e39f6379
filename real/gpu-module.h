/* gpu-module — dpscale's GPU code (CUDA, cuBLAS and NCCL: the device count,
 * calibrate/gpu-nccl.c) is a module, dpscale-gpu.so, loaded on first use, so
 * that a command that never drives a GPU never loads the CUDA libraries
 * (they took about 77 of the 82 ms of every dpscale start).  The module
 * calls back into the program that loads it (dps_cal_data_add, ...): that
 * program exports its symbols (CMake's ENABLE_EXPORTS). */
#pragma once

#include <glib.h>

/* The module's function `name`, or NULL with the reason in *why (a new
 * string; why may be NULL): a build without CUDA and NCCL, or the module
 * not found beside the program (nor one folder up, where a test program
 * of the build tree finds it) or failing to load.  Loaded once. */
gpointer dps_gpu_module_symbol (const char *name, char **why);

// SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
// SPDX-License-Identifier: Apache-2.0
/* The TensorRT-RTX test harness's shim (tests only; tests/rtx_harness/README.md says why).
 *
 * TensorRT-RTX 1.7 builds and deserializes engines only for the GPUs it lists (compute capability
 * 7.5, 8.0, 8.6, 8.9 and 12.x). Preloaded with LD_PRELOAD, this library makes TensorRT-RTX's own
 * compute-capability queries answer 8.9 while rtx_harness_pretend(1) is in force, and the real
 * value at every other moment and to every other caller. sitecustomize.py turns it on around
 * Builder(), build_serialized_network and deserialize_cuda_engine only: loading and running the
 * engine's kernels must see the real GPU (TensorRT-RTX compiles them for it at run time, and
 * fails with CUDA error 209, no kernel image, when it is told 8.9 there).
 *
 * How TensorRT-RTX reaches the driver: it looks cuGetProcAddress (or cuDeviceGetAttribute) up
 * with dlsym, then fetches further driver functions through cuGetProcAddress. So this library
 * defines dlsym; for callers inside a TensorRT-RTX library it hands back wrappers that pass every
 * fetched cuDeviceGetAttribute through get_attribute below. Nothing else is changed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

typedef int CUresult;
typedef CUresult (*GetAttribute)(int *value, int attribute, int device);
/* The exported cuGetProcAddress keeps its CUDA 11 signature; one fetched for CUDA 12 or later
 * (and the exported cuGetProcAddress_v2) has a fifth argument, the lookup status. */
typedef CUresult (*GetProcAddress)(const char *symbol, void **function, int cuda_version, uint64_t flags);
typedef CUresult (*GetProcAddressV2)(const char *symbol, void **function, int cuda_version, uint64_t flags,
                                     void *status);
typedef void *(*Dlsym)(void *handle, const char *symbol);

enum { CC_MAJOR = 75, CC_MINOR = 76 }; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR */
enum { SHOWN_MAJOR = 8, SHOWN_MINOR = 9 }; /* the newest listed GPU below Hopper: Ada */
enum { CUDA_12 = 12000 };

static volatile int pretending;
static GetAttribute real_get_attribute;
static GetProcAddress real_get_proc_address;
static GetProcAddressV2 real_get_proc_address_v2;

/* Called from Python (ctypes.CDLL(None)): 1 around the calls that check the GPU, then 0. */
void rtx_harness_pretend(int on) { pretending = on; }
int rtx_harness_pretending(void) { return pretending; }

static CUresult get_attribute(int *value, int attribute, int device) {
  CUresult status = real_get_attribute(value, attribute, device);
  if (status == 0 && pretending && attribute == CC_MAJOR) *value = SHOWN_MAJOR;
  if (status == 0 && pretending && attribute == CC_MINOR) *value = SHOWN_MINOR;
  return status;
}

static void *wrapped(const char *symbol, void *function, int cuda_version);

static CUresult get_proc_address(const char *symbol, void **function, int cuda_version, uint64_t flags) {
  CUresult status = real_get_proc_address(symbol, function, cuda_version, flags);
  if (status == 0 && function) *function = wrapped(symbol, *function, cuda_version);
  return status;
}

static CUresult get_proc_address_v2(const char *symbol, void **function, int cuda_version, uint64_t flags,
                                    void *lookup_status) {
  CUresult status = real_get_proc_address_v2(symbol, function, cuda_version, flags, lookup_status);
  if (status == 0 && function) *function = wrapped(symbol, *function, cuda_version);
  return status;
}

/* The function to hand back for a driver function TensorRT-RTX asked for: ours for the two
 * that matter, the driver's own for the rest. */
static void *wrapped(const char *symbol, void *function, int cuda_version) {
  if (!function) return function;
  if (!strcmp(symbol, "cuDeviceGetAttribute")) {
    real_get_attribute = (GetAttribute)function;
    return (void *)get_attribute;
  }
  if (!strcmp(symbol, "cuGetProcAddress_v2") || (!strcmp(symbol, "cuGetProcAddress") && cuda_version >= CUDA_12)) {
    real_get_proc_address_v2 = (GetProcAddressV2)function;
    return (void *)get_proc_address_v2;
  }
  if (!strcmp(symbol, "cuGetProcAddress")) {
    real_get_proc_address = (GetProcAddress)function;
    return (void *)get_proc_address;
  }
  return function;
}

static int inside_tensorrt_rtx(const void *address) {
  Dl_info info;
  return dladdr(address, &info) && info.dli_fname && strstr(info.dli_fname, "tensorrt_rtx");
}

static Dlsym real_dlsym(void) {
  static Dlsym found;
  if (!found) found = (Dlsym)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");   /* glibc 2.34 and later */
  if (!found) found = (Dlsym)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");  /* older glibc on x86-64 */
  return found;
}

void *dlsym(void *handle, const char *symbol) {
  /* Every other caller gets the real dlsym as a tail call, so that RTLD_NEXT keeps meaning "after
   * the caller" (glibc reads the caller from the return address). */
  if (!inside_tensorrt_rtx(__builtin_return_address(0))) return real_dlsym()(handle, symbol);
  /* By name, cuGetProcAddress is the CUDA 11 signature whatever version is asked for later. */
  return wrapped(symbol, real_dlsym()(handle, symbol), 0);
}

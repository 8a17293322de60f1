/* cuda.c — the CUDA driver API loaded at run time: finding libcuda, the current context
 * (or the device's primary context), device queries and the small memory helpers. */
#include "runtime.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

tilec_status rt_cuda_fail(tilec_context *ctx, int result, const char *what)
{
    const char *name = NULL, *desc = NULL;
    if (ctx->cu.GetErrorName)
        ctx->cu.GetErrorName(result, &name);
    if (ctx->cu.GetErrorString)
        ctx->cu.GetErrorString(result, &desc);
    tilec_status s = result == CU_ERR_NO_DEVICE ? TILEC_ERROR_NO_DEVICE : TILEC_ERROR_DRIVER;
    return rt_fail(ctx, s, "%s failed: %s (%s)", what, name ? name : "CUDA error", desc ? desc : "no description");
}

#define LOAD(field, sym)                                                                         \
    do {                                                                                         \
        *(void **)&cu->field = dlsym(cu->handle, sym);                                           \
        if (!cu->field) {                                                                        \
            tilec_status s = rt_fail(ctx, TILEC_ERROR_DRIVER_NOT_FOUND,                          \
                                     "the CUDA driver %s has no symbol %s (too old?)", lib, sym); \
            rt_cuda_unload(cu);                                                                  \
            return s;                                                                            \
        }                                                                                        \
    } while (0)

tilec_status rt_cuda_load(tilec_context *ctx)
{
    RtCuda *cu = &ctx->cu;
    if (cu->initialised)
        return TILEC_OK;
    const char *lib = ctx->cuda_library ? ctx->cuda_library : "libcuda.so.1";
    if (!cu->handle) {
        cu->handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!cu->handle) {
            const char *e = dlerror();
            return rt_fail(ctx, TILEC_ERROR_DRIVER_NOT_FOUND,
                           "cannot load the CUDA driver (%s): %s; loading and launching kernels needs an NVIDIA "
                           "GPU and its driver (translating and compiling do not)",
                           lib, e ? e : "not found");
        }
    }
    LOAD(Init, "cuInit");
    LOAD(DriverGetVersion, "cuDriverGetVersion");
    LOAD(DeviceGetCount, "cuDeviceGetCount");
    LOAD(DeviceGet, "cuDeviceGet");
    LOAD(DeviceGetAttribute, "cuDeviceGetAttribute");
    LOAD(CtxGetCurrent, "cuCtxGetCurrent");
    LOAD(CtxSetCurrent, "cuCtxSetCurrent");
    LOAD(CtxGetDevice, "cuCtxGetDevice");
    LOAD(CtxSynchronize, "cuCtxSynchronize");
    LOAD(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    LOAD(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    LOAD(ModuleLoadData, "cuModuleLoadData");
    LOAD(ModuleUnload, "cuModuleUnload");
    LOAD(ModuleGetFunction, "cuModuleGetFunction");
    LOAD(FuncSetAttribute, "cuFuncSetAttribute");
    LOAD(FuncGetAttribute, "cuFuncGetAttribute");
    LOAD(LaunchKernel, "cuLaunchKernel");
    LOAD(MemAlloc, "cuMemAlloc_v2");
    LOAD(MemFree, "cuMemFree_v2");
    LOAD(MemcpyHtoD, "cuMemcpyHtoD_v2");
    LOAD(MemcpyDtoH, "cuMemcpyDtoH_v2");
    LOAD(MemsetD8, "cuMemsetD8_v2");
    LOAD(GetErrorName, "cuGetErrorName");
    LOAD(GetErrorString, "cuGetErrorString");
    *(void **)&cu->TensorMapEncodeTiled = dlsym(cu->handle, "cuTensorMapEncodeTiled"); /* only TMA kernels need it */
    int rc = cu->Init(0);
    if (rc) {
        tilec_status s = rt_cuda_fail(ctx, rc, "cuInit");
        rt_cuda_unload(cu);
        return s;
    }
    cu->initialised = true;
    return TILEC_OK;
}

void rt_cuda_unload(RtCuda *cu)
{
    if (cu->retained_ctx && cu->DevicePrimaryCtxRelease)
        cu->DevicePrimaryCtxRelease(cu->retained_device);
    if (cu->handle)
        dlclose(cu->handle);
    memset(cu, 0, sizeof *cu);
}

tilec_status rt_cuda_current(tilec_context *ctx, void **cuctx)
{
    tilec_status s = rt_cuda_load(ctx);
    if (s)
        return s;
    RtCuda *cu = &ctx->cu;
    void *c = NULL;
    int rc = cu->CtxGetCurrent(&c);
    if (rc)
        return rt_cuda_fail(ctx, rc, "cuCtxGetCurrent");
    if (!c) {
        if (!cu->retained_ctx) {
            int count = 0, dev = 0;
            if ((rc = cu->DeviceGetCount(&count)))
                return rt_cuda_fail(ctx, rc, "cuDeviceGetCount");
            if (ctx->device < 0 || ctx->device >= count)
                return rt_fail(ctx, TILEC_ERROR_NO_DEVICE, "there is no CUDA device %d (the driver sees %d)", ctx->device,
                               count);
            if ((rc = cu->DeviceGet(&dev, ctx->device)))
                return rt_cuda_fail(ctx, rc, "cuDeviceGet");
            if ((rc = cu->DevicePrimaryCtxRetain(&cu->retained_ctx, dev)))
                return rt_cuda_fail(ctx, rc, "cuDevicePrimaryCtxRetain");
            cu->retained_device = dev;
        }
        c = cu->retained_ctx;
        if ((rc = cu->CtxSetCurrent(c)))
            return rt_cuda_fail(ctx, rc, "cuCtxSetCurrent");
    }
    *cuctx = c;
    return TILEC_OK;
}

tilec_status tilec_device_arch(tilec_context *ctx, int *arch)
{
    if (!ctx || !arch)
        return TILEC_ERROR_INVALID_ARGUMENT;
    void *c;
    tilec_status s = rt_cuda_current(ctx, &c);
    if (s)
        return s;
    RtCuda *cu = &ctx->cu;
    int dev, major = 0, minor = 0, rc;
    if ((rc = cu->CtxGetDevice(&dev)))
        return rt_cuda_fail(ctx, rc, "cuCtxGetDevice");
    if ((rc = cu->DeviceGetAttribute(&major, CU_ATTR_CC_MAJOR, dev)) ||
        (rc = cu->DeviceGetAttribute(&minor, CU_ATTR_CC_MINOR, dev)))
        return rt_cuda_fail(ctx, rc, "cuDeviceGetAttribute(compute capability)");
    *arch = 10 * major + minor;
    return rt_ok(ctx);
}

/* ---- memory helpers ------------------------------------------------------------------- */

#define WITH_CONTEXT(ctx)                                                                        \
    do {                                                                                         \
        if (!(ctx))                                                                              \
            return TILEC_ERROR_INVALID_ARGUMENT;                                                 \
        void *cur_;                                                                              \
        tilec_status s_ = rt_cuda_current((ctx), &cur_);                                         \
        if (s_)                                                                                  \
            return s_;                                                                           \
    } while (0)

static tilec_status done(tilec_context *ctx, int rc, const char *what)
{
    return rc ? rt_cuda_fail(ctx, rc, what) : rt_ok(ctx);
}

tilec_status tilec_mem_alloc(tilec_context *ctx, size_t bytes, tilec_deviceptr *out)
{
    WITH_CONTEXT(ctx);
    if (!out)
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT, "tilec_mem_alloc: out is NULL");
    return done(ctx, ctx->cu.MemAlloc(out, bytes ? bytes : 1), "cuMemAlloc");
}

tilec_status tilec_mem_free(tilec_context *ctx, tilec_deviceptr p)
{
    WITH_CONTEXT(ctx);
    return done(ctx, p ? ctx->cu.MemFree(p) : 0, "cuMemFree");
}

tilec_status tilec_memcpy_htod(tilec_context *ctx, tilec_deviceptr dst, const void *src, size_t bytes)
{
    WITH_CONTEXT(ctx);
    return done(ctx, bytes ? ctx->cu.MemcpyHtoD(dst, src, bytes) : 0, "cuMemcpyHtoD");
}

tilec_status tilec_memcpy_dtoh(tilec_context *ctx, void *dst, tilec_deviceptr src, size_t bytes)
{
    WITH_CONTEXT(ctx);
    return done(ctx, bytes ? ctx->cu.MemcpyDtoH(dst, src, bytes) : 0, "cuMemcpyDtoH");
}

tilec_status tilec_memset(tilec_context *ctx, tilec_deviceptr dst, unsigned char byte, size_t bytes)
{
    WITH_CONTEXT(ctx);
    return done(ctx, bytes ? ctx->cu.MemsetD8(dst, byte, bytes) : 0, "cuMemsetD8");
}

tilec_status tilec_synchronize(tilec_context *ctx)
{
    WITH_CONTEXT(ctx);
    return done(ctx, ctx->cu.CtxSynchronize(), "cuCtxSynchronize (a kernel before it failed)");
}

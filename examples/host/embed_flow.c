/*
 * embed_flow.c — the precompiled flow: tilec --embed-cubin compiled add_kernel with NVRTC at
 * build time into add_kernel_embed.c (cubins for sm_80 and sm_90, PTX for newer GPUs); this
 * program links that file and -lcuda only: no nvcc, no NVRTC, no tilec at run time.
 * Built by examples/host/Makefile (`make embed`).
 */
#include <stdio.h>

#include "add_kernel_embed.h"

int main(void)
{
    enum { N = 10000 };
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i, y[i] = 0.5f;
    CUdevice dev;
    CUcontext ctx;
    add_kernel_module m;
    CUdeviceptr dx, dy, dout;
    CUresult r = cuInit(0);
    if (!r) r = cuDeviceGet(&dev, 0);
    if (!r) r = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (!r) r = cuCtxSetCurrent(ctx);
    if (!r) r = add_kernel_load(&m); /* picks the binary for this GPU */
    if (!r) r = cuMemAlloc(&dx, sizeof x);
    if (!r) r = cuMemAlloc(&dy, sizeof y);
    if (!r) r = cuMemAlloc(&dout, sizeof out);
    if (!r) r = cuMemcpyHtoD(dx, x, sizeof x);
    if (!r) r = cuMemcpyHtoD(dy, y, sizeof y);
    if (!r) r = add_kernel_launch(&m, NULL, dx, dy, dout, N);
    if (!r) r = cuMemcpyDtoH(out, dout, sizeof out);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != x[i] + y[i];
    const char *name = "CUDA_SUCCESS";
    cuGetErrorName(r, &name);
    printf("embed flow: %s (sm_%d binary), %d wrong\n", name, m.arch, bad);
    return r != CUDA_SUCCESS || bad;
}

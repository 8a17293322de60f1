/*
 * embed_run.c — the --embed-cubin flow from a plain C program that links only -lcuda: two
 * kernels precompiled by `tilec --embed-cubin` at build time (make lib-test writes them to
 * build/.../tests/lib/embed/), loaded with NAME_load, launched with NAME_launch, checked.
 *
 *   activation_kernel (leaky_relu, fp32 scalar alpha: passed as a 4-byte float), grid from
 *   --grid;  softmax_kernel (no --grid: the caller gives grid_x, grid_y, grid_z).
 *
 * In CI it is only built and linked (against the driver stub); make gpu-lib-test runs it.
 */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "activation_kernel_embed.h"
#include "softmax_kernel_embed.h"

#define CK(call)                                                                                 \
    do {                                                                                         \
        CUresult r_ = (call);                                                                    \
        if (r_ != CUDA_SUCCESS) {                                                                \
            const char *name_ = "?";                                                             \
            cuGetErrorName(r_, &name_);                                                          \
            fprintf(stderr, "embed_run: %s: %s\n", #call, name_);                                \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

static int leaky_relu(CUstream stream)
{
    activation_kernel_module m;
    CK(activation_kernel_load(&m));
    enum { N = 100003 };
    static float x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 201 - 100) * 0.5f;
    CUdeviceptr dx, dy;
    CK(cuMemAlloc(&dx, sizeof x));
    CK(cuMemAlloc(&dy, sizeof y));
    CK(cuMemcpyHtoD(dx, x, sizeof x));
    CK(cuMemsetD8(dy, 0xff, sizeof y));
    CK(activation_kernel_launch(&m, stream, dx, dy, N, 0.125f));
    CK(cuStreamSynchronize(stream));
    CK(cuMemcpyDtoH(y, dy, sizeof y));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += y[i] != (x[i] >= 0 ? x[i] : 0.125f * x[i]);
    printf("embed activation_kernel (sm_%d binary): %d elements, %d wrong\n", m.arch, N, bad);
    cuMemFree(dx);
    cuMemFree(dy);
    CK(activation_kernel_unload(&m));
    return bad != 0;
}

static int softmax(CUstream stream)
{
    softmax_kernel_module m;
    CK(softmax_kernel_load(&m));
    enum { ROWS = 300, COLS = 1000 };
    static float in[ROWS * COLS], out[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++)
        in[i] = (float)((unsigned)i * 7919u % 1000u) / 100.0f - 5.0f;
    CUdeviceptr din, dout;
    CK(cuMemAlloc(&din, sizeof in));
    CK(cuMemAlloc(&dout, sizeof out));
    CK(cuMemcpyHtoD(din, in, sizeof in));
    CK(softmax_kernel_launch(&m, stream, ROWS, 1, 1, dout, din, COLS, COLS, COLS));
    CK(cuStreamSynchronize(stream));
    CK(cuMemcpyDtoH(out, dout, sizeof out));
    double worst = 0;
    for (int r = 0; r < ROWS; r++) {
        double mx = -INFINITY, sum = 0;
        for (int c = 0; c < COLS; c++)
            mx = fmax(mx, in[r * COLS + c]);
        for (int c = 0; c < COLS; c++)
            sum += exp(in[r * COLS + c] - mx);
        for (int c = 0; c < COLS; c++) {
            double ref = exp(in[r * COLS + c] - mx) / sum, e = fabs(out[r * COLS + c] - ref) / ref;
            worst = e > worst || e != e ? e : worst;
        }
    }
    printf("embed softmax_kernel (sm_%d binary): %d x %d, worst relative error %.3g\n", m.arch, ROWS, COLS, worst);
    cuMemFree(din);
    cuMemFree(dout);
    CK(softmax_kernel_unload(&m));
    return !(worst <= 1e-5);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    int rc = leaky_relu(NULL) | softmax(NULL);
    cuDevicePrimaryCtxRelease(dev);
    printf("embed_run: %s\n", rc ? "FAILED" : "all results correct");
    return rc;
}

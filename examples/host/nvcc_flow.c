/*
 * nvcc_flow.c — the nvcc flow from C: tilec wrote add_kernel.cu (kernel + launcher) and
 * add_kernel.h (--header) at build time; nvcc compiled the .cu; this file only calls the
 * launcher.  Built by examples/host/Makefile (`make nvcc`).
 */
#include <stdio.h>
#include <stdlib.h>

#include "add_kernel.h"

int main(void)
{
    enum { N = 10000 };
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i, y[i] = 0.5f;
    float *dx, *dy, *dout;
    if (cudaMalloc((void **)&dx, sizeof x) || cudaMalloc((void **)&dy, sizeof y) || cudaMalloc((void **)&dout, sizeof out)) {
        fprintf(stderr, "nvcc_flow: cudaMalloc failed (no GPU?)\n");
        return 1;
    }
    cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, sizeof y, cudaMemcpyHostToDevice);
    cudaError_t e = add_kernel_launch(0, dx, dy, dout, N); /* the grid comes from --grid */
    if (e == cudaSuccess)
        e = cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != x[i] + y[i];
    printf("nvcc flow: %s, %d wrong\n", cudaGetErrorString(e), bad);
    return e != cudaSuccess || bad;
}

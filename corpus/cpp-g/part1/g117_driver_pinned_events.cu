// case: Driver-API pipeline with cuMemHostAlloc(PORTABLE) staging, cuMemAlloc device buffers, cuMemcpyHtoDAsync/DtoHAsync on a non-blocking stream, a cuEventSynchronize before the host reads, and matching cuMemFreeHost/cuMemFree.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define NELEM  (1 << 21)
#define DCHECK(call) do { CUresult _r = (call); if (_r != CUDA_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call, (int)_r); exit(1); } } while (0)

__global__ void saturate(float *v, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = fminf(fmaxf(v[i], lo), hi);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    CUevent start, stop;
    CUdeviceptr d_buf;
    float *h_buf;
    size_t bytes = NELEM * sizeof(float);

    DCHECK(cuInit(0));
    DCHECK(cuDeviceGet(&dev, 0));
    DCHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    DCHECK(cuCtxSetCurrent(ctx));
    DCHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    DCHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    DCHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));

    DCHECK(cuMemHostAlloc((void **)&h_buf, bytes, CU_MEMHOSTALLOC_PORTABLE));
    DCHECK(cuMemAlloc(&d_buf, bytes));

    for (int i = 0; i < NELEM; i++) h_buf[i] = (float)(i % 200) - 100.0f;

    DCHECK(cuEventRecord(start, stream));
    DCHECK(cuMemcpyHtoDAsync(d_buf, h_buf, bytes, stream));
    saturate<<<(NELEM + 255) / 256, 256, 0, (cudaStream_t)stream>>>((float *)d_buf, NELEM, -50.f, 50.f);
    DCHECK(cuMemcpyDtoHAsync(h_buf, d_buf, bytes, stream));
    DCHECK(cuEventRecord(stop, stream));
    DCHECK(cuEventSynchronize(stop));

    float ms = 0.f;
    DCHECK(cuEventElapsedTime(&ms, start, stop));
    int clipped = 0;
    for (int i = 0; i < NELEM; i++) clipped += (h_buf[i] == 50.f || h_buf[i] == -50.f);
    printf("%d clipped values, %.3f ms round trip\n", clipped, ms);

    DCHECK(cuMemFree(d_buf));
    DCHECK(cuMemFreeHost(h_buf));
    DCHECK(cuEventDestroy(stop));
    DCHECK(cuEventDestroy(start));
    DCHECK(cuStreamDestroy(stream));
    DCHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

// case: double-buffered upload pipeline: each pinned staging slot has its own event, and the host waits on that slot's event before refilling it, so no staging write races an in-flight copy
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x) do { cudaError_t st = (x); if (st != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(st), __FILE__, __LINE__); \
    abort(); } } while (0)

static const int kSlots = 2;
static const size_t kChunk = 1 << 20;   // floats per chunk
static const int kChunks = 16;

__global__ void scale_accumulate(const float* in, float* acc, size_t n, float k) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) acc[i] += k * in[i];
}

static void produce_chunk(float* dst, size_t n, int c) {
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>((i + c) % 101) * 0.01f;
}

int main() {
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));

    float* staging[kSlots];
    float* d_in[kSlots];
    cudaEvent_t slot_free[kSlots];
    for (int s = 0; s < kSlots; ++s) {
        CK(cudaMallocHost(&staging[s], kChunk * sizeof(float)));
        CK(cudaMalloc(&d_in[s], kChunk * sizeof(float)));
        CK(cudaEventCreateWithFlags(&slot_free[s], cudaEventDisableTiming));
    }
    float* d_acc;
    CK(cudaMalloc(&d_acc, kChunk * sizeof(float)));
    CK(cudaMemsetAsync(d_acc, 0, kChunk * sizeof(float), stream));

    for (int c = 0; c < kChunks; ++c) {
        int s = c % kSlots;
        if (c >= kSlots) CK(cudaEventSynchronize(slot_free[s]));
        produce_chunk(staging[s], kChunk, c);
        CK(cudaMemcpyAsync(d_in[s], staging[s], kChunk * sizeof(float),
                           cudaMemcpyHostToDevice, stream));
        CK(cudaEventRecord(slot_free[s], stream));
        scale_accumulate<<<(kChunk + 255) / 256, 256, 0, stream>>>(d_in[s], d_acc, kChunk, 0.5f);
        CK(cudaGetLastError());
    }

    float* h_acc;
    CK(cudaMallocHost(&h_acc, kChunk * sizeof(float)));
    CK(cudaMemcpyAsync(h_acc, d_acc, kChunk * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamSynchronize(stream));
    printf("acc[0]=%f acc[last]=%f\n", h_acc[0], h_acc[kChunk - 1]);

    CK(cudaFreeHost(h_acc));
    CK(cudaFree(d_acc));
    for (int s = 0; s < kSlots; ++s) {
        CK(cudaEventDestroy(slot_free[s]));
        CK(cudaFree(d_in[s]));
        CK(cudaFreeHost(staging[s]));
    }
    CK(cudaStreamDestroy(stream));
    return 0;
}

// case: a triple-buffered frame uploader records a per-slot event after each upload but never waits on it: when the ring wraps, the host overwrites a pinned slot whose earlier upload may still be reading it (no wait on any turn).
// expect: missing_sync=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void blend(const float* frame, float* acc, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] = alpha * frame[i] + (1.0f - alpha) * acc[i];
}

int main() {
    const int n = 1920 * 1080;
    const size_t bytes = n * sizeof(float);
    const int kSlots = 3;
    const int frames = 120;

    float* h_slot[kSlots];
    float* d_slot[kSlots];
    cudaEvent_t uploaded[kSlots];
    for (int k = 0; k < kSlots; ++k) {
        CHECK(cudaMallocHost(&h_slot[k], bytes));
        CHECK(cudaMalloc(&d_slot[k], bytes));
        CHECK(cudaEventCreateWithFlags(&uploaded[k], cudaEventDisableTiming));
    }
    float *d_acc, *h_acc;
    CHECK(cudaMalloc(&d_acc, bytes));
    CHECK(cudaMallocHost(&h_acc, bytes));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMemsetAsync(d_acc, 0, bytes, s));

    for (int f = 0; f < frames; ++f) {
        int k = f % kSlots;
        // BUG: missing cudaEventSynchronize(uploaded[k]) before refilling the slot
        for (int i = 0; i < n; ++i) h_slot[k][i] = (float)((i + f) % 255) / 255.0f;  // EXPECT: missing_sync
        CHECK(cudaMemcpyAsync(d_slot[k], h_slot[k], bytes, cudaMemcpyHostToDevice, s));
        CHECK(cudaEventRecord(uploaded[k], s));
        blend<<<(n + 255) / 256, 256, 0, s>>>(d_slot[k], d_acc, 0.1f, n);
        CHECK(cudaGetLastError());
    }

    CHECK(cudaMemcpyAsync(h_acc, d_acc, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("acc[0] = %f\n", h_acc[0]);

    CHECK(cudaStreamDestroy(s));
    for (int k = 0; k < kSlots; ++k) {
        CHECK(cudaEventDestroy(uploaded[k]));
        CHECK(cudaFree(d_slot[k]));
        CHECK(cudaFreeHost(h_slot[k]));
    }
    CHECK(cudaFree(d_acc));
    CHECK(cudaFreeHost(h_acc));
    return 0;
}

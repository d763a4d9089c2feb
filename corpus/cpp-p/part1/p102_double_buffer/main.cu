// case: double-buffered upload through a StagingRing (header) with one event per slot; before the host refills a pinned slot it synchronizes on that slot's event, recorded after the copy and kernel that used it, and the final readback is waited for: correct.
// expect: none
#include <cstdio>
#include "staging_ring.h"

__global__ void accumulate(const float* in, float* acc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += in[i];
}

static void produce_batch(float* dst, size_t n, int batch) {
    for (size_t i = 0; i < n; ++i) dst[i] = (float)((batch + i) % 17);
}

int main() {
    const int n = 1 << 20;
    const int batches = 16;
    StagingRing ring(n);

    float *d_acc, *h_acc;
    CHECK(cudaMalloc(&d_acc, n * sizeof(float)));
    CHECK(cudaMallocHost(&h_acc, n * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMemsetAsync(d_acc, 0, n * sizeof(float), s));

    for (int b = 0; b < batches; ++b) {
        int slot = b % StagingRing::kSlots;
        // the slot's previous copy and kernel must be done before it is refilled
        CHECK(cudaEventSynchronize(ring.done(slot)));
        produce_batch(ring.host(slot), n, b);
        CHECK(cudaMemcpyAsync(ring.dev(slot), ring.host(slot), n * sizeof(float),
                              cudaMemcpyHostToDevice, s));
        accumulate<<<(n + 255) / 256, 256, 0, s>>>(ring.dev(slot), d_acc, n);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(ring.done(slot), s));
    }

    CHECK(cudaMemcpyAsync(h_acc, d_acc, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("acc[0] = %f acc[n-1] = %f\n", h_acc[0], h_acc[n - 1]);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(h_acc));
    CHECK(cudaFree(d_acc));
    return 0;
}

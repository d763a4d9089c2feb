// case: Two-slot double-buffered batch pipeline on two non-blocking streams; before a slot's pinned buffers are refilled or its results read, the host waits on that slot's event, and the tail batches are drained with cudaEventSynchronize.
// expect: none
#include "pipeline.h"

constexpr int kBatches = 8;
constexpr size_t kBatchElems = size_t(1) << 21;

__global__ void square_kernel(const float* in, float* out, size_t n) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

int main() {
    Slot slots[2];
    for (auto& s : slots) slot_init(s, kBatchElems);

    const size_t bytes = kBatchElems * sizeof(float);
    const unsigned grid = unsigned((kBatchElems + 255) / 256);
    double total = 0.0;

    for (int b = 0; b < kBatches; ++b) {
        Slot& s = slots[b & 1];
        if (b >= 2) {
            // batch b-2 used this slot: wait for its copies and kernel, then consume it
            CUDA_CHECK(cudaEventSynchronize(s.done));
            total += sum_batch(s.h_out, kBatchElems);
        }
        fill_batch(s.h_in, kBatchElems, b);
        CUDA_CHECK(cudaMemcpyAsync(s.d_in, s.h_in, bytes, cudaMemcpyHostToDevice, s.stream));
        square_kernel<<<grid, 256, 0, s.stream>>>(s.d_in, s.d_out, kBatchElems);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(s.h_out, s.d_out, bytes, cudaMemcpyDeviceToHost, s.stream));
        CUDA_CHECK(cudaEventRecord(s.done, s.stream));
    }

    // drain the last batch of each slot
    for (int b = kBatches - 2; b < kBatches; ++b) {
        Slot& s = slots[b & 1];
        CUDA_CHECK(cudaEventSynchronize(s.done));
        total += sum_batch(s.h_out, kBatchElems);
    }

    std::printf("checksum %.1f\n", total);
    for (auto& s : slots) slot_destroy(s);
    return 0;
}

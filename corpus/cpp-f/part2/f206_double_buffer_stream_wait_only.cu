// case: A chunked log-compression pipeline double-buffers pinned staging slots and records an event per upload, but only makes the compute stream wait on it (cudaStreamWaitEvent); the host refills a slot with std::copy while its previous upload may still read it.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int kSlots = 2;
constexpr size_t kChunk = 4u << 20;  // 4 MiB per chunk

__global__ void byte_histogram(const uint8_t* __restrict__ data, size_t n, unsigned long long* hist) {
    __shared__ unsigned local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], (unsigned long long)local[i]);
}

int main() {
    const size_t total = 64 * kChunk;
    std::vector<uint8_t> log_bytes(total);
    for (size_t i = 0; i < total; ++i) log_bytes[i] = uint8_t((i * 2654435761u) >> 24);

    cudaStream_t copy_stream, compute_stream;
    CK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking));

    uint8_t* h_stage[kSlots];
    uint8_t* d_stage[kSlots];
    cudaEvent_t uploaded[kSlots], consumed[kSlots];
    for (int s = 0; s < kSlots; ++s) {
        CK(cudaMallocHost(&h_stage[s], kChunk));
        CK(cudaMalloc(&d_stage[s], kChunk));
        CK(cudaEventCreateWithFlags(&uploaded[s], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&consumed[s], cudaEventDisableTiming));
    }
    unsigned long long* d_hist;
    CK(cudaMalloc(&d_hist, 256 * sizeof(unsigned long long)));
    CK(cudaMemsetAsync(d_hist, 0, 256 * sizeof(unsigned long long), compute_stream));

    const size_t n_chunks = total / kChunk;
    for (size_t c = 0; c < n_chunks; ++c) {
        int slot = int(c % kSlots);
        // BUG: nothing on the host waits for uploaded[slot] from two chunks ago
        std::copy(log_bytes.begin() + c * kChunk, log_bytes.begin() + (c + 1) * kChunk, h_stage[slot]);
        CK(cudaStreamWaitEvent(copy_stream, consumed[slot], 0));
        CK(cudaMemcpyAsync(d_stage[slot], h_stage[slot], kChunk, cudaMemcpyHostToDevice, copy_stream));
        CK(cudaEventRecord(uploaded[slot], copy_stream));
        CK(cudaStreamWaitEvent(compute_stream, uploaded[slot], 0));
        byte_histogram<<<132, 256, 0, compute_stream>>>(d_stage[slot], kChunk, d_hist);
        CK(cudaEventRecord(consumed[slot], compute_stream));
    }

    unsigned long long hist[256];
    CK(cudaStreamSynchronize(copy_stream));
    CK(cudaStreamSynchronize(compute_stream));
    CK(cudaMemcpy(hist, d_hist, sizeof(hist), cudaMemcpyDeviceToHost));
    unsigned long long sum = 0;
    for (int i = 0; i < 256; ++i) sum += hist[i];
    printf("bytes histogrammed: %llu of %zu\n", sum, total);

    for (int s = 0; s < kSlots; ++s) {
        cudaFreeHost(h_stage[s]);
        cudaFree(d_stage[s]);
        cudaEventDestroy(uploaded[s]);
        cudaEventDestroy(consumed[s]);
    }
    cudaFree(d_hist);
    cudaStreamDestroy(copy_stream);
    cudaStreamDestroy(compute_stream);
    return 0;
}

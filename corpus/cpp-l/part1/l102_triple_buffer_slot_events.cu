// case: triple-buffered streaming of a large host dataset through per-slot pinned staging buffers and streams; each slot's event is synchronized before that slot's pinned input is refilled and its output consumed, and all slots are drained before the frees, so the code is correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                    \
                    cudaGetErrorString(err_));                                    \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

constexpr int kSlots = 3;
constexpr size_t kChunkElems = 1 << 22;          // 16 MiB of floats per chunk
constexpr size_t kChunkBytes = kChunkElems * sizeof(float);

__global__ void clip_and_scale(const float* in, float* out, size_t n, float lo, float hi, float s) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = fminf(fmaxf(in[i], lo), hi) * s;
}

static double consume(const float* h, size_t n) {
    double acc = 0.0;
    for (size_t i = 0; i < n; ++i) acc += h[i];
    return acc;
}

int main(int argc, char** argv) {
    const int nchunks = argc > 1 ? std::atoi(argv[1]) : 24;
    std::vector<float> dataset(kChunkElems * 2);
    for (size_t i = 0; i < dataset.size(); ++i) dataset[i] = float(int(i % 4001) - 2000) * 0.01f;

    float* h_in[kSlots];
    float* h_out[kSlots];
    float* d_in[kSlots];
    float* d_out[kSlots];
    cudaStream_t streams[kSlots];
    cudaEvent_t slot_done[kSlots];
    int pending[kSlots];
    for (int s = 0; s < kSlots; ++s) {
        CUDA_CHECK(cudaMallocHost(&h_in[s], kChunkBytes));
        CUDA_CHECK(cudaMallocHost(&h_out[s], kChunkBytes));
        CUDA_CHECK(cudaMalloc(&d_in[s], kChunkBytes));
        CUDA_CHECK(cudaMalloc(&d_out[s], kChunkBytes));
        CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&slot_done[s], cudaEventDisableTiming));
        pending[s] = -1;
    }

    double checksum = 0.0;
    const unsigned blocks = unsigned((kChunkElems + 255) / 256);
    for (int c = 0; c < nchunks; ++c) {
        const int slot = c % kSlots;
        // the slot's previous H2D (reads h_in) and D2H (writes h_out) are both before this event
        CUDA_CHECK(cudaEventSynchronize(slot_done[slot]));
        if (pending[slot] >= 0) checksum += consume(h_out[slot], kChunkElems);

        const float* src = dataset.data() + (size_t(c) % 2) * kChunkElems;
        std::memcpy(h_in[slot], src, kChunkBytes);

        cudaStream_t st = streams[slot];
        CUDA_CHECK(cudaMemcpyAsync(d_in[slot], h_in[slot], kChunkBytes, cudaMemcpyHostToDevice, st));
        clip_and_scale<<<blocks, 256, 0, st>>>(d_in[slot], d_out[slot], kChunkElems, -5.f, 5.f, 0.5f);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_out[slot], d_out[slot], kChunkBytes, cudaMemcpyDeviceToHost, st));
        CUDA_CHECK(cudaEventRecord(slot_done[slot], st));
        pending[slot] = c;
    }

    for (int s = 0; s < kSlots; ++s) {
        CUDA_CHECK(cudaEventSynchronize(slot_done[s]));
        if (pending[s] >= 0) checksum += consume(h_out[s], kChunkElems);
    }
    printf("processed %d chunks, checksum %.4f\n", nchunks, checksum);

    for (int s = 0; s < kSlots; ++s) {
        CUDA_CHECK(cudaEventDestroy(slot_done[s]));
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
        CUDA_CHECK(cudaFree(d_in[s]));
        CUDA_CHECK(cudaFree(d_out[s]));
        CUDA_CHECK(cudaFreeHost(h_in[s]));
        CUDA_CHECK(cudaFreeHost(h_out[s]));
    }
    return 0;
}

// case: a variant-calling pileup uses six allocators and releases each with its own function: managed memory with cudaFree, a stream-ordered cudaMallocAsync buffer with cudaFreeAsync, a pitched matrix with cudaFree, a cuMemAllocAsync scratch with cuMemFree after the stream is drained (allowed by the driver), portable pinned memory with cudaFreeHost, and a malloc'd table registered/unregistered with cudaHostRegister before free.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define RT(x)                                                                       \
    do {                                                                            \
        cudaError_t e_ = (x);                                                       \
        if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } \
    } while (0)
#define DR(x)                                                                       \
    do {                                                                            \
        CUresult e_ = (x);                                                          \
        if (e_ != CUDA_SUCCESS) { std::fprintf(stderr, "%s: %d\n", #x, static_cast<int>(e_)); std::exit(1); } \
    } while (0)

constexpr int kWindow = 1 << 16;     // reference positions per window
constexpr int kMaxDepth = 256;       // reads stacked per position
constexpr int kBases = 5;            // A C G T N

__global__ void pileup_counts(const uint8_t* bases, size_t pitch, int depth, int window, uint32_t* counts) {
    int pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= window) return;
    for (int r = 0; r < depth; ++r) {
        uint8_t b = reinterpret_cast<const uint8_t*>(reinterpret_cast<const char*>(bases) + r * pitch)[pos];
        counts[pos * kBases + (b < kBases ? b : 4)] += 1;
    }
}

__global__ void call_alleles(const uint32_t* counts, const float* prior, float* scratch, int window, float* qual) {
    int pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= window) return;
    const uint32_t* c = counts + pos * kBases;
    uint32_t total = c[0] + c[1] + c[2] + c[3] + c[4], best = 0;
    for (int b = 0; b < 4; ++b) best = max(best, c[b]);
    scratch[pos] = total ? float(best) / total : 0.f;
    qual[pos] = -10.f * log10f(fmaxf(1.f - scratch[pos] * prior[pos % 1024], 1e-6f));
}

int main() {
    RT(cudaSetDevice(0));
    RT(cudaFree(nullptr));
    cudaStream_t s;
    RT(cudaStreamCreate(&s));

    float* prior = nullptr;                                   // managed
    RT(cudaMallocManaged(&prior, 1024 * sizeof(float)));
    for (int i = 0; i < 1024; ++i) prior[i] = 0.999f;

    uint8_t* d_bases = nullptr;                               // pitched device matrix
    size_t pitch = 0;
    RT(cudaMallocPitch(reinterpret_cast<void**>(&d_bases), &pitch, kWindow, kMaxDepth));
    RT(cudaMemset2DAsync(d_bases, pitch, 2, kWindow, kMaxDepth, s));

    uint32_t* d_counts = nullptr;                             // stream-ordered
    RT(cudaMallocAsync(reinterpret_cast<void**>(&d_counts), kWindow * kBases * sizeof(uint32_t), s));
    RT(cudaMemsetAsync(d_counts, 0, kWindow * kBases * sizeof(uint32_t), s));

    CUdeviceptr scratch = 0;                                  // driver stream-ordered
    DR(cuMemAllocAsync(&scratch, kWindow * sizeof(float), s));

    float* h_qual = nullptr;                                  // portable pinned
    RT(cudaHostAlloc(reinterpret_cast<void**>(&h_qual), kWindow * sizeof(float), cudaHostAllocPortable));
    float* d_qual = nullptr;
    RT(cudaMalloc(&d_qual, kWindow * sizeof(float)));

    auto* contig_names = static_cast<char*>(std::malloc(1 << 20));   // plain heap, registered for DMA
    std::strcpy(contig_names, "chr1");
    RT(cudaHostRegister(contig_names, 1 << 20, cudaHostRegisterDefault));

    pileup_counts<<<(kWindow + 255) / 256, 256, 0, s>>>(d_bases, pitch, kMaxDepth, kWindow, d_counts);
    call_alleles<<<(kWindow + 255) / 256, 256, 0, s>>>(d_counts, prior, reinterpret_cast<float*>(scratch), kWindow, d_qual);
    RT(cudaMemcpyAsync(h_qual, d_qual, kWindow * sizeof(float), cudaMemcpyDeviceToHost, s));
    RT(cudaFreeAsync(d_counts, s));
    RT(cudaStreamSynchronize(s));

    std::printf("%s:1 QUAL=%.1f\n", contig_names, h_qual[0]);

    DR(cuMemFree(scratch));          // cuMemAllocAsync memory: cuMemFree is allowed once no work uses it
    RT(cudaFree(d_qual));
    RT(cudaFreeHost(h_qual));
    RT(cudaFree(d_bases));
    RT(cudaFree(prior));
    RT(cudaHostUnregister(contig_names));
    std::free(contig_names);
    RT(cudaStreamDestroy(s));
    return 0;
}

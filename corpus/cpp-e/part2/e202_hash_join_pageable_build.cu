// case: a columnar database's GPU hash join uploads the probe column from pinned memory but the build-side keys from a std::vector with cudaMemcpyAsync (16 MiB pageable): the build upload is a pageable async copy.
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e_)); return false; } } while (0)

constexpr size_t kBuildRows = size_t(1) << 22;
constexpr size_t kProbeRows = size_t(1) << 23;
constexpr uint32_t kSlots = 1u << 23;

__global__ void build_table(const uint32_t* keys, size_t n, uint32_t* slots) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    uint32_t h = (keys[i] * 2654435761u) & (kSlots - 1);
    while (atomicCAS(&slots[h], 0xffffffffu, keys[i]) != 0xffffffffu) h = (h + 1) & (kSlots - 1);
}

__global__ void probe_table(const uint32_t* probe, size_t n, const uint32_t* slots, uint32_t* hits) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    uint32_t h = (probe[i] * 2654435761u) & (kSlots - 1);
    for (;;) {
        uint32_t s = slots[h];
        if (s == probe[i]) { atomicAdd(hits, 1u); return; }
        if (s == 0xffffffffu) return;
        h = (h + 1) & (kSlots - 1);
    }
}

struct JoinContext {
    cudaStream_t stream{};
    uint32_t* d_build = nullptr;
    uint32_t* d_probe = nullptr;
    uint32_t* d_slots = nullptr;
    uint32_t* d_hits = nullptr;
    uint32_t* h_probe = nullptr;   // pinned
    uint32_t* h_hits = nullptr;    // pinned
};

static bool run_join(JoinContext& jc, const std::vector<uint32_t>& build_keys) {
    CUDA_CHECK(cudaMemsetAsync(jc.d_slots, 0xff, kSlots * sizeof(uint32_t), jc.stream));
    CUDA_CHECK(cudaMemsetAsync(jc.d_hits, 0, sizeof(uint32_t), jc.stream));
    CUDA_CHECK(cudaMemcpyAsync(jc.d_build, build_keys.data(), build_keys.size() * sizeof(uint32_t), // EXPECT: pageable_async_copy
                               cudaMemcpyHostToDevice, jc.stream));
    CUDA_CHECK(cudaMemcpyAsync(jc.d_probe, jc.h_probe, kProbeRows * sizeof(uint32_t),
                               cudaMemcpyHostToDevice, jc.stream));
    build_table<<<(kBuildRows + 255) / 256, 256, 0, jc.stream>>>(jc.d_build, kBuildRows, jc.d_slots);
    probe_table<<<(kProbeRows + 255) / 256, 256, 0, jc.stream>>>(jc.d_probe, kProbeRows, jc.d_slots, jc.d_hits);
    CUDA_CHECK(cudaMemcpyAsync(jc.h_hits, jc.d_hits, sizeof(uint32_t), cudaMemcpyDeviceToHost, jc.stream));
    CUDA_CHECK(cudaStreamSynchronize(jc.stream));
    std::printf("join matched %u probe rows\n", *jc.h_hits);
    return true;
}

int main() {
    JoinContext jc;
    cudaStreamCreateWithFlags(&jc.stream, cudaStreamNonBlocking);
    cudaMalloc(&jc.d_build, kBuildRows * sizeof(uint32_t));
    cudaMalloc(&jc.d_probe, kProbeRows * sizeof(uint32_t));
    cudaMalloc(&jc.d_slots, kSlots * sizeof(uint32_t));
    cudaMalloc(&jc.d_hits, sizeof(uint32_t));
    cudaMallocHost(&jc.h_probe, kProbeRows * sizeof(uint32_t));
    cudaMallocHost(&jc.h_hits, sizeof(uint32_t));

    std::vector<uint32_t> build_keys(kBuildRows);
    for (size_t i = 0; i < kBuildRows; ++i) build_keys[i] = uint32_t(i * 3);
    for (size_t i = 0; i < kProbeRows; ++i) jc.h_probe[i] = uint32_t(i);

    bool ok = run_join(jc, build_keys);

    cudaFreeHost(jc.h_hits);
    cudaFreeHost(jc.h_probe);
    cudaFree(jc.d_hits);
    cudaFree(jc.d_slots);
    cudaFree(jc.d_probe);
    cudaFree(jc.d_build);
    cudaStreamDestroy(jc.stream);
    return ok ? 0 : 1;
}

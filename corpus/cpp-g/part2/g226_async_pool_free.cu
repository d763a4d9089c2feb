// case: a GPU join operator takes scratch from a cudaMemPool with cudaMallocFromPoolAsync and returns it with cudaFreeAsync on the same stream, frees a cuMemAllocAsync hash table with cuMemFree after synchronizing (allowed), and pairs cudaHostRegister with cudaHostUnregister: every release matches its allocator.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

#define JOIN_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));   \
    } while (0)
#define JOIN_CU(x)                                                                 \
    do {                                                                           \
        if ((x) != CUDA_SUCCESS) throw std::runtime_error("driver: " #x);          \
    } while (0)

__global__ void build_table(const int32_t* keys, int n, int32_t* table, int slots) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int h = (keys[i] * 2654435761u) % slots;
    while (atomicCAS(&table[h], -1, keys[i]) != -1) h = (h + 1) % slots;
}

__global__ void probe_table(const int32_t* probes, int n, const int32_t* table, int slots,
                            uint32_t* flags, unsigned* matches) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int h = (probes[i] * 2654435761u) % slots;
    for (int step = 0; step < slots && table[h] != -1; ++step, h = (h + 1) % slots)
        if (table[h] == probes[i]) { flags[i] = 1; atomicAdd(matches, 1u); return; }
    flags[i] = 0;
}

int main() {
    const int n = 1 << 20, slots = 1 << 21;
    cudaStream_t stream;
    JOIN_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    cudaMemPool_t pool;
    JOIN_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t threshold = UINT64_MAX;
    JOIN_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));

    std::vector<int32_t> keys(n);
    for (int i = 0; i < n; ++i) keys[i] = i * 3;
    JOIN_CHECK(cudaHostRegister(keys.data(), keys.size() * sizeof(int32_t), cudaHostRegisterReadOnly));

    unsigned* h_matches = nullptr;
    JOIN_CHECK(cudaMallocHost(&h_matches, sizeof(unsigned)));

    CUdeviceptr table = 0;
    JOIN_CU(cuMemAllocAsync(&table, slots * sizeof(int32_t), reinterpret_cast<CUstream>(stream)));
    JOIN_CHECK(cudaMemsetAsync(reinterpret_cast<void*>(table), 0xff, slots * sizeof(int32_t), stream));

    int32_t* d_keys = nullptr;
    uint32_t* d_flags = nullptr;
    unsigned* d_matches = nullptr;
    JOIN_CHECK(cudaMallocFromPoolAsync(&d_keys, n * sizeof(int32_t), pool, stream));
    JOIN_CHECK(cudaMallocFromPoolAsync(&d_flags, n * sizeof(uint32_t), pool, stream));
    JOIN_CHECK(cudaMallocAsync(&d_matches, sizeof(unsigned), stream));
    JOIN_CHECK(cudaMemsetAsync(d_matches, 0, sizeof(unsigned), stream));

    JOIN_CHECK(cudaMemcpyAsync(d_keys, keys.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice, stream));
    build_table<<<(n + 255) / 256, 256, 0, stream>>>(d_keys, n, reinterpret_cast<int32_t*>(table), slots);
    probe_table<<<(n + 255) / 256, 256, 0, stream>>>(d_keys, n, reinterpret_cast<int32_t*>(table), slots,
                                                     d_flags, d_matches);
    JOIN_CHECK(cudaMemcpyAsync(h_matches, d_matches, sizeof(unsigned), cudaMemcpyDeviceToHost, stream));

    // Stream-ordered frees: they take effect after the kernels above, no host wait needed.
    JOIN_CHECK(cudaFreeAsync(d_keys, stream));
    JOIN_CHECK(cudaFreeAsync(d_flags, stream));
    JOIN_CHECK(cudaFreeAsync(d_matches, stream));

    JOIN_CHECK(cudaStreamSynchronize(stream));
    std::printf("%u of %d probe keys matched\n", *h_matches, n);

    JOIN_CU(cuMemFree(table));  // cuMemAllocAsync memory; all work on it is done
    JOIN_CHECK(cudaHostUnregister(keys.data()));
    JOIN_CHECK(cudaFreeHost(h_matches));
    JOIN_CHECK(cudaStreamDestroy(stream));
    return 0;
}

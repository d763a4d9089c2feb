// case: a k-mer counter shares a cudaMallocHost'd count table through std::shared_ptr with a cudaFreeHost deleter and owns its device table through std::unique_ptr with a cudaFree deleter, reading the table only after cudaStreamSynchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int K = 8;
constexpr int kTable = 1 << (2 * K);   // 65536 k-mers

__device__ __forceinline__ int base2bits(char c) {
    return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3;
}

__global__ void count_kmers(const char* seq, size_t n, unsigned* table) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i + K > n) return;
    unsigned code = 0;
    for (int j = 0; j < K; ++j) code = (code << 2) | base2bits(seq[i + j]);
    atomicAdd(&table[code], 1u);
}

template <typename T>
std::shared_ptr<T> make_pinned(size_t n) {
    T* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, n * sizeof(T)));
    return std::shared_ptr<T>(p, [](T* q) { cudaFreeHost(q); });
}

template <typename T>
auto make_device(size_t n) {
    T* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    auto del = [](T* q) { cudaFree(q); };
    return std::unique_ptr<T, decltype(del)>(p, del);
}

int main() {
    std::string genome(20'000'000, 'A');
    const char alphabet[4] = {'A', 'C', 'G', 'T'};
    for (size_t i = 0; i < genome.size(); ++i) genome[i] = alphabet[(i * 2654435761u >> 13) & 3];

    auto h_table = make_pinned<unsigned>(kTable);
    std::shared_ptr<unsigned> report_view = h_table;   // handed to the report writer
    auto d_seq = make_device<char>(genome.size());
    auto d_table = make_device<unsigned>(kTable);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaMemcpy(d_seq.get(), genome.data(), genome.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemsetAsync(d_table.get(), 0, kTable * sizeof(unsigned), s));
    count_kmers<<<(unsigned)((genome.size() + 255) / 256), 256, 0, s>>>(d_seq.get(), genome.size(), d_table.get());
    CUDA_CHECK(cudaMemcpyAsync(h_table.get(), d_table.get(), kTable * sizeof(unsigned),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    unsigned best = 0;
    for (int k = 1; k < kTable; ++k)
        if (report_view.get()[k] > report_view.get()[best]) best = k;
    printf("most frequent 8-mer code %u (%u hits)\n", best, report_view.get()[best]);

    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}

// case: modern C++ bitonic-sort driver whose device buffer comes from a make_device<T>(n) factory returning a std::unique_ptr with a cudaFree deleter; the pointer starts as nullptr but is allocated before use
// expect: none
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

struct CudaDeleter {
    void operator()(void *p) const { cudaFree(p); }
};
template <typename T>
using device_ptr = std::unique_ptr<T[], CudaDeleter>;

template <typename T>
device_ptr<T> make_device(size_t n)
{
    T *raw = nullptr;
    CUDA_CHECK(cudaMalloc(&raw, n * sizeof(T)));
    return device_ptr<T>(raw);
}

constexpr int kN = 1 << 16;

__global__ void bitonic_step(int *data, int j, int k)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned partner = i ^ j;
    if (partner > i) {
        bool up = (i & k) == 0;
        if ((data[i] > data[partner]) == up) {
            int t = data[i];
            data[i] = data[partner];
            data[partner] = t;
        }
    }
}

int main()
{
    std::vector<int> h(kN);
    std::mt19937 rng(42);
    for (int &v : h) v = int(rng() % 100000);

    device_ptr<int> d = nullptr;
    d = make_device<int>(kN);
    CUDA_CHECK(cudaMemcpy(d.get(), h.data(), kN * sizeof(int), cudaMemcpyHostToDevice));

    for (int k = 2; k <= kN; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1)
            bitonic_step<<<kN / 256, 256>>>(d.get(), j, k);
    CUDA_CHECK(cudaMemcpy(h.data(), d.get(), kN * sizeof(int), cudaMemcpyDeviceToHost));

    bool sorted = true;
    for (int i = 1; i < kN; ++i) sorted &= h[i - 1] <= h[i];
    std::printf("sorted: %s\n", sorted ? "yes" : "no");
    return 0;
}

// case: a recommendation model's embedding table and lookup indices live in managed memory; the host fills them before any kernel, prefetches them to the GPU, runs the lookup kernel that uses them, prefetches the output back and reads it only after cudaStreamSynchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <memory>
#include <stdexcept>

#define EMB_CHECK(x)                                                               \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));   \
    } while (0)

template <typename T>
std::shared_ptr<T> make_managed(size_t n) {
    T* p = nullptr;
    EMB_CHECK(cudaMallocManaged(&p, n * sizeof(T)));
    return std::shared_ptr<T>(p, [](T* q) { cudaFree(q); });
}

static void prefetch(const void* p, size_t bytes, int device, cudaStream_t s) {
#if CUDART_VERSION >= 13000
    cudaMemLocation loc{};
    loc.type = (device == cudaCpuDeviceId) ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = (device == cudaCpuDeviceId) ? 0 : device;
    EMB_CHECK(cudaMemPrefetchAsync(p, bytes, loc, 0, s));
#else
    EMB_CHECK(cudaMemPrefetchAsync(p, bytes, device, s));
#endif
}

__global__ void embedding_bag(const float* table, const int* idx, int bags, int per_bag, int dim, float* out) {
    int b = blockIdx.x;
    int d = threadIdx.x;
    if (b >= bags || d >= dim) return;
    float acc = 0.f;
    for (int k = 0; k < per_bag; ++k) acc += table[(size_t)idx[b * per_bag + k] * dim + d];
    out[(size_t)b * dim + d] = acc / per_bag;
}

int main() {
    const int rows = 1 << 18, dim = 64, bags = 4096, per_bag = 16;
    int device = 0;
    EMB_CHECK(cudaGetDevice(&device));
    cudaStream_t stream;
    EMB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    auto table = make_managed<float>(size_t(rows) * dim);
    auto idx = make_managed<int>(size_t(bags) * per_bag);
    auto out = make_managed<float>(size_t(bags) * dim);

    for (size_t i = 0; i < size_t(rows) * dim; ++i) table.get()[i] = (i % 251) * 0.004f;
    for (int i = 0; i < bags * per_bag; ++i) idx.get()[i] = (i * 7919) % rows;

    prefetch(table.get(), sizeof(float) * rows * dim, device, stream);
    prefetch(idx.get(), sizeof(int) * bags * per_bag, device, stream);
    embedding_bag<<<bags, dim, 0, stream>>>(table.get(), idx.get(), bags, per_bag, dim, out.get());
    prefetch(out.get(), sizeof(float) * bags * dim, cudaCpuDeviceId, stream);
    EMB_CHECK(cudaStreamSynchronize(stream));

    double sum = 0.0;
    for (int i = 0; i < bags * dim; ++i) sum += out.get()[i];
    std::printf("pooled embedding mean %.5f\n", sum / (bags * dim));

    EMB_CHECK(cudaStreamDestroy(stream));
    return 0;
}

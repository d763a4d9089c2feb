// case: Jacobi solver for a tridiagonal system whose host vectors are std::vectors with an allocator that calls cudaMallocHost/cudaFreeHost, so every cudaMemcpyAsync is from or to page-locked memory; the host reads x only after a stream synchronize, and the early return runs the vectors' destructors after that wait: correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <new>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            throw std::bad_alloc();                                               \
        }                                                                         \
    } while (0)
#define SYNC_STREAM(s) CUDA_CHECK(cudaStreamSynchronize(s))

template <typename T>
struct PinnedAllocator {
    using value_type = T;
    PinnedAllocator() noexcept = default;
    template <typename U>
    PinnedAllocator(const PinnedAllocator<U>&) noexcept {}
    T* allocate(std::size_t n)
    {
        void* p = nullptr;
        if (cudaMallocHost(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) noexcept { cudaFreeHost(p); }
};
template <typename T, typename U>
bool operator==(const PinnedAllocator<T>&, const PinnedAllocator<U>&) { return true; }
template <typename T, typename U>
bool operator!=(const PinnedAllocator<T>&, const PinnedAllocator<U>&) { return false; }

template <typename T>
using pinned_vector = std::vector<T, PinnedAllocator<T>>;

template <typename T>
class DeviceVector {
public:
    explicit DeviceVector(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&p_, n * sizeof(T))); }
    ~DeviceVector() { cudaFree(p_); }
    DeviceVector(const DeviceVector&) = delete;
    T* get() const { return p_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* p_ = nullptr;
    size_t n_;
};

// -x[i-1] + 4 x[i] - x[i+1] = b[i]
__global__ void jacobi_sweep(const float* b, const float* x, float* x_new, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float left = i > 0 ? x[i - 1] : 0.f;
    float right = i < n - 1 ? x[i + 1] : 0.f;
    x_new[i] = (b[i] + left + right) * 0.25f;
}

static int solve(int n, int sweeps)
{
    pinned_vector<float> b(n), x(n, 0.f);
    for (int i = 0; i < n; ++i) b[i] = 1.0f + 0.001f * (i % 100);

    DeviceVector<float> d_b(n), d_x(n), d_tmp(n);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    CUDA_CHECK(cudaMemcpyAsync(d_b.get(), b.data(), d_b.bytes(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(d_x.get(), x.data(), d_x.bytes(), cudaMemcpyHostToDevice, s));
    float* cur = d_x.get();
    float* nxt = d_tmp.get();
    for (int k = 0; k < sweeps; ++k) {
        jacobi_sweep<<<(n + 255) / 256, 256, 0, s>>>(d_b.get(), cur, nxt, n);
        std::swap(cur, nxt);
    }
    CUDA_CHECK(cudaMemcpyAsync(x.data(), cur, d_x.bytes(), cudaMemcpyDeviceToHost, s));
    SYNC_STREAM(s);
    CUDA_CHECK(cudaStreamDestroy(s));

    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
        double l = i > 0 ? x[i - 1] : 0.0, r = i < n - 1 ? x[i + 1] : 0.0;
        worst = std::fmax(worst, std::fabs(4.0 * x[i] - l - r - b[i]));
    }
    if (worst > 1e-3) {
        printf("jacobi: not converged, residual %.3e\n", worst);
        return 1; // pinned_vector and DeviceVector destructors run here, after the wait
    }
    printf("jacobi: converged, residual %.3e\n", worst);
    return 0;
}

int main()
{
    return solve(1 << 20, 200);
}

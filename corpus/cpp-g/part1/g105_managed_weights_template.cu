// case: A templated ManagedArray RAII wrapper; while the saxpy kernel on x/y runs, the host fills the next step's managed `weights` array (globally attached, not used by the kernel) before cudaDeviceSynchronize.
// expect: managed_concurrent_access=1
#include <cstdio>
#include <cstddef>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CUDA_OK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

template <typename T>
class ManagedArray {
public:
    explicit ManagedArray(std::size_t n) : n_(n) {
        CUDA_OK(cudaMallocManaged(&p_, n * sizeof(T)));
    }
    ~ManagedArray() { cudaFree(p_); }
    ManagedArray(const ManagedArray&) = delete;
    ManagedArray& operator=(const ManagedArray&) = delete;

    T* data() { return p_; }
    std::size_t size() const { return n_; }
    T& operator[](std::size_t i) { return p_[i]; }

private:
    T* p_ = nullptr;
    std::size_t n_;
};

__global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale_by(const float* w, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= w[i];
}

int main() {
    const int n = 1 << 22;
    ManagedArray<float> x(n), y(n), weights(n);

    for (int i = 0; i < n; ++i) { x[i] = 1.0f; y[i] = 2.0f; }

    const int block = 256, grid = (n + block - 1) / block;
    saxpy<<<grid, block>>>(3.0f, x.data(), y.data(), n);
    CUDA_OK(cudaGetLastError());

    // overlap host setup of the next step with the kernel
    for (int i = 0; i < n; ++i) weights[i] = std::exp(-1e-6f * i);

    CUDA_OK(cudaDeviceSynchronize());

    scale_by<<<grid, block>>>(weights.data(), y.data(), n);
    CUDA_OK(cudaDeviceSynchronize());

    double s = 0.0;
    for (int i = 0; i < n; ++i) s += y[i];
    std::printf("sum %.3f\n", s);
    return 0;
}

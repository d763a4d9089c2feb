// case: a solver initialises its direction vector with a fill kernel and uploads x before the read-only axpy kernel consumes both, then copies the result back.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t s = (call); if (s != cudaSuccess) { \
    std::printf("%s failed: %s\n", #call, cudaGetErrorString(s)); std::exit(1); } } while (0)

template <typename T>
__global__ void fill(T* p, T value, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = value;
}

template <typename T>
__global__ void axpy(T a, const T* x, const T* d, T* out, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + a * d[i];
}

template <typename T>
struct DeviceArray {
    T* ptr = nullptr;
    size_t n = 0;
    explicit DeviceArray(size_t count) : n(count) { CUDA_CHECK(cudaMalloc(&ptr, count * sizeof(T))); }
    ~DeviceArray() { cudaFree(ptr); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

int main()
{
    const size_t n = 1 << 20;
    const unsigned blocks = (unsigned)((n + 255) / 256);
    std::vector<double> hx(n, 2.0), hout(n);

    DeviceArray<double> x(n), dir(n), out(n);
    CUDA_CHECK(cudaMemcpy(x.ptr, hx.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    fill<double><<<blocks, 256>>>(dir.ptr, 1.0, n);
    axpy<double><<<blocks, 256>>>(0.5, x.ptr, dir.ptr, out.ptr, n);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(hout.data(), out.ptr, n * sizeof(double), cudaMemcpyDeviceToHost));
    std::printf("out[0] = %f\n", hout[0]);
    return 0;
}

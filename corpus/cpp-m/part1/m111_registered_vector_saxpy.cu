// case: A BLAS-style batch page-locks its std::vector inputs and outputs in place with cudaHostRegister before the async copies, synchronizes the stream before reading the result, and unregisters before the vectors die; neither pageable nor racing; correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(e)                                                              \
    do {                                                                           \
        cudaError_t r = (e);                                                       \
        if (r != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(r));                                   \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

__global__ void axpby(size_t n, float a, const float* __restrict__ x, float b, float* __restrict__ y) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        y[i] = a * x[i] + b * y[i];
}

class RegisteredVector {
public:
    explicit RegisteredVector(size_t n, float init) : v_(n, init) {
        CUDA_CHECK(cudaHostRegister(v_.data(), v_.size() * sizeof(float), cudaHostRegisterDefault));
    }
    ~RegisteredVector() { cudaHostUnregister(v_.data()); }
    RegisteredVector(const RegisteredVector&) = delete;
    RegisteredVector& operator=(const RegisteredVector&) = delete;
    float* data() { return v_.data(); }
    size_t size() const { return v_.size(); }
    size_t bytes() const { return v_.size() * sizeof(float); }
    float& operator[](size_t i) { return v_[i]; }
private:
    std::vector<float> v_;
};

int main(int argc, char** argv) {
    size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t(1) << 24);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    RegisteredVector x(n, 1.5f);
    RegisteredVector y(n, -0.5f);
    for (size_t i = 0; i < n; i += 4096) x[i] = float(i % 100);

    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, x.bytes()));
    CUDA_CHECK(cudaMalloc(&d_y, y.bytes()));

    CUDA_CHECK(cudaMemcpyAsync(d_x, x.data(), x.bytes(), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_y, y.data(), y.bytes(), cudaMemcpyHostToDevice, stream));
    axpby<<<1024, 256, 0, stream>>>(n, 2.0f, d_x, 3.0f, d_y);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(y.data(), d_y, y.bytes(), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double checksum = 0.0;
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        float expect = 2.0f * x[i] + 3.0f * -0.5f;
        if (std::fabs(y[i] - expect) > 1e-4f) ++bad;
        checksum += y[i];
    }
    std::printf("n=%zu checksum=%.1f mismatches=%zu\n", n, checksum, bad);

    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}

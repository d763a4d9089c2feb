// case: spectral filter: the input and output std::vectors are page-locked with cudaHostRegister before the async copies, the stream is synchronized before the host reads the output, and both are unregistered afterwards
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void moving_average(const float* in, float* out, int n, int radius) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    int cnt = 0;
    for (int k = -radius; k <= radius; ++k) {
        int j = i + k;
        if (j >= 0 && j < n) { acc += in[j]; ++cnt; }
    }
    out[i] = acc / cnt;
}

template <typename T>
class RegisteredVector {
public:
    explicit RegisteredVector(size_t n) : data_(n) {
        CUDA_CHECK(cudaHostRegister(data_.data(), data_.size() * sizeof(T), cudaHostRegisterDefault));
    }
    ~RegisteredVector() { cudaHostUnregister(data_.data()); }
    RegisteredVector(const RegisteredVector&) = delete;
    RegisteredVector& operator=(const RegisteredVector&) = delete;

    T* data() { return data_.data(); }
    size_t size() const { return data_.size(); }
    size_t bytes() const { return data_.size() * sizeof(T); }
    T& operator[](size_t i) { return data_[i]; }

private:
    std::vector<T> data_;
};

int main() {
    const int n = 1 << 24;
    RegisteredVector<float> signal(n), filtered(n);
    for (int i = 0; i < n; ++i) signal[i] = static_cast<float>((i % 100) - 50);

    float *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, signal.bytes()));
    CUDA_CHECK(cudaMalloc(&d_out, filtered.bytes()));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    CUDA_CHECK(cudaMemcpyAsync(d_in, signal.data(), signal.bytes(), cudaMemcpyHostToDevice, s));
    moving_average<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n, 8);
    CUDA_CHECK(cudaMemcpyAsync(filtered.data(), d_out, filtered.bytes(), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    double energy = 0.0;
    for (int i = 0; i < n; ++i) energy += static_cast<double>(filtered[i]) * filtered[i];
    std::printf("filtered energy %.3e\n", energy);

    CUDA_CHECK(cudaStreamDestroy(s));
    cudaFree(d_out);
    cudaFree(d_in);
    return 0;
}

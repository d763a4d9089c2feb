// case: a bilateral-denoise step allocates a cudaMalloc'd scratch Workspace whose destructor calls cudaFree at the end of the scope while the filter kernels may still run; cudaFree of cudaMalloc memory synchronizes implicitly, and the pinned output is read after cudaStreamSynchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e)); exit(1); } } while (0)

class Workspace {
public:
    explicit Workspace(size_t bytes) : bytes_(bytes) { CUDA_CHECK(cudaMalloc(&ptr_, bytes)); }
    ~Workspace() { cudaFree(ptr_); }   // implicit synchronization for cudaMalloc'd memory
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    template <typename T> T* as() { return static_cast<T*>(ptr_); }
    size_t bytes() const { return bytes_; }
private:
    void* ptr_ = nullptr;
    size_t bytes_;
};

__global__ void bilateral_h(const float* in, float* tmp, int w, int h, float sigma_r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w) return;
    float c = in[y * w + x], acc = 0.f, norm = 0.f;
    for (int d = -4; d <= 4; ++d) {
        float v = in[y * w + min(max(x + d, 0), w - 1)];
        float wgt = __expf(-(v - c) * (v - c) / (2.f * sigma_r * sigma_r) - d * d / 8.f);
        acc += wgt * v; norm += wgt;
    }
    tmp[y * w + x] = acc / norm;
}

__global__ void bilateral_v(const float* tmp, uint8_t* out, int w, int h, float sigma_r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w) return;
    float c = tmp[y * w + x], acc = 0.f, norm = 0.f;
    for (int d = -4; d <= 4; ++d) {
        float v = tmp[min(max(y + d, 0), h - 1) * w + x];
        float wgt = __expf(-(v - c) * (v - c) / (2.f * sigma_r * sigma_r) - d * d / 8.f);
        acc += wgt * v; norm += wgt;
    }
    out[y * w + x] = (uint8_t)fminf(255.f, acc / norm);
}

static void denoise(const float* d_in, uint8_t* d_out, int w, int h, cudaStream_t s) {
    Workspace tmp((size_t)w * h * sizeof(float));
    dim3 grid((w + 255) / 256, h);
    bilateral_h<<<grid, 256, 0, s>>>(d_in, tmp.as<float>(), w, h, 12.f);
    bilateral_v<<<grid, 256, 0, s>>>(tmp.as<float>(), d_out, w, h, 12.f);
}   // ~Workspace: cudaFree

int main() {
    const int w = 4096, h = 3072;
    float* d_in; uint8_t *d_out, *h_out;
    CUDA_CHECK(cudaMalloc(&d_in, (size_t)w * h * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, (size_t)w * h));
    CUDA_CHECK(cudaMallocHost(&h_out, (size_t)w * h));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaMemsetAsync(d_in, 0, (size_t)w * h * sizeof(float), s));

    denoise(d_in, d_out, w, h, s);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, (size_t)w * h, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    unsigned long long sum = 0;
    for (size_t i = 0; i < (size_t)w * h; i += 97) sum += h_out[i];
    printf("denoised, sampled sum %llu\n", sum);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    return 0;
}

// case: A conv-layer class template uploads its filter weights from a std::vector through a templated DeviceTensor::upload_async method, so the large cudaMemcpyAsync in that method reads pageable memory; activations use pinned staging and are fine.
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <numeric>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                   \
                    cudaGetErrorString(err_));                                  \
            std::exit(1);                                                       \
        }                                                                       \
    } while (0)

template <typename T>
class DeviceTensor {
public:
    explicit DeviceTensor(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&ptr_, n * sizeof(T))); }
    ~DeviceTensor() { cudaFree(ptr_); }
    DeviceTensor(const DeviceTensor&) = delete;
    DeviceTensor& operator=(const DeviceTensor&) = delete;

    void upload_async(const std::vector<T>& host, cudaStream_t s) {
        // host.data() is ordinary heap memory: the driver stages it through its own buffer
        CUDA_CHECK(cudaMemcpyAsync(ptr_, host.data(), host.size() * sizeof(T),
                                   cudaMemcpyHostToDevice, s));
    }
    void upload_async(const T* pinned, size_t count, cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(ptr_, pinned, count * sizeof(T), cudaMemcpyHostToDevice, s));
    }
    void download_async(T* pinned, cudaStream_t s) const {
        CUDA_CHECK(cudaMemcpyAsync(pinned, ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost, s));
    }
    T* data() { return ptr_; }
    const T* data() const { return ptr_; }
    size_t size() const { return n_; }

private:
    T* ptr_ = nullptr;
    size_t n_;
};

__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ w,
                           float* __restrict__ out, int C, int K, int H, int W) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z;
    if (x >= W || y >= H) return;
    float acc = 0.f;
    for (int c = 0; c < C; ++c)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int yy = min(max(y + dy, 0), H - 1), xx = min(max(x + dx, 0), W - 1);
                acc += in[(c * H + yy) * W + xx] * w[((k * C + c) * 3 + dy + 1) * 3 + dx + 1];
            }
    out[(k * H + y) * W + x] = fmaxf(acc, 0.f);
}

template <typename T>
struct Conv2dLayer {
    int C, K, H, W;
    DeviceTensor<T> weights, input, output;
    Conv2dLayer(int c, int k, int h, int w)
        : C(c), K(k), H(h), W(w), weights(size_t(k) * c * 9), input(size_t(c) * h * w),
          output(size_t(k) * h * w) {}

    void load_weights(const std::vector<T>& w, cudaStream_t s) { weights.upload_async(w, s); }

    void forward(const T* pinned_in, T* pinned_out, cudaStream_t s) {
        input.upload_async(pinned_in, input.size(), s);
        dim3 block(16, 16), grid((W + 15) / 16, (H + 15) / 16, K);
        conv2d_3x3<<<grid, block, 0, s>>>(input.data(), weights.data(), output.data(), C, K, H, W);
        output.download_async(pinned_out, s);
    }
};

int main() {
    const int C = 256, K = 256, H = 56, W = 56;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    Conv2dLayer<float> layer(C, K, H, W);
    std::vector<float> w(size_t(K) * C * 9);           // 2.25 MiB of weights
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.01f * float(i % 97) - 0.4f;
    layer.load_weights(w, stream);

    float *h_in, *h_out;
    CUDA_CHECK(cudaMallocHost(&h_in, size_t(C) * H * W * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out, size_t(K) * H * W * sizeof(float)));
    for (size_t i = 0; i < size_t(C) * H * W; ++i) h_in[i] = float(i % 13);

    layer.forward(h_in, h_out, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double sum = std::accumulate(h_out, h_out + size_t(K) * H * W, 0.0);
    printf("conv output checksum %.3f\n", sum);

    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}

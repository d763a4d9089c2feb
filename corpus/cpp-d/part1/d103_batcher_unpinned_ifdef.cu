// case: inference-server batcher whose input staging vector is page-locked only under BATCHER_PIN_INPUTS, which nothing defines, so each batch upload is a pageable cudaMemcpyAsync; its output buffer comes from cudaMallocHost but is held in the same unique_ptr type as the device buffers, whose deleter calls cudaFree.
// expect: pageable_async_copy=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(e_));         \
            std::abort();                                                         \
        }                                                                         \
    } while (0)

struct CudaDeleter {
    void operator()(float* p) const { if (p) cudaFree(p); } // EXPECT: mismatched_free
};
using DeviceBuffer = std::unique_ptr<float, CudaDeleter>;

static float* device_alloc(size_t n)
{
    float* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(float)));
    return p;
}

static float* pinned_alloc(size_t n)
{
    float* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, n * sizeof(float)));
    return p;
}

__global__ void dense_relu(const float* in, const float* w, float* out, int batch, int feat, int outdim)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (o >= outdim || b >= batch) return;
    float acc = 0.f;
    for (int k = 0; k < feat; ++k) acc += in[b * feat + k] * w[k * outdim + o];
    out[b * outdim + o] = acc > 0.f ? acc : 0.f;
}

class Batcher {
public:
    Batcher(int max_batch, int feat, int outdim)
        : max_batch_(max_batch), feat_(feat), outdim_(outdim),
          inputs_(size_t(max_batch) * feat),
          d_in_(device_alloc(size_t(max_batch) * feat)),
          d_w_(device_alloc(size_t(feat) * outdim)),
          d_out_(device_alloc(size_t(max_batch) * outdim)),
          h_out_(pinned_alloc(size_t(max_batch) * outdim))
    {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
#ifdef BATCHER_PIN_INPUTS
        CUDA_CHECK(cudaHostRegister(inputs_.data(), inputs_.size() * sizeof(float),
                                    cudaHostRegisterDefault));
#endif
        CUDA_CHECK(cudaMemsetAsync(d_w_.get(), 0, size_t(feat) * outdim * sizeof(float), stream_));
    }

    ~Batcher()
    {
        cudaStreamSynchronize(stream_);
#ifdef BATCHER_PIN_INPUTS
        cudaHostUnregister(inputs_.data());
#endif
        cudaStreamDestroy(stream_);
    }

    int submit(const std::vector<std::vector<float>>& requests)
    {
        int batch = 0;
        for (const auto& r : requests) {
            if (batch == max_batch_) break;
            std::memcpy(inputs_.data() + size_t(batch) * feat_, r.data(), feat_ * sizeof(float));
            ++batch;
        }
        const size_t in_bytes = size_t(batch) * feat_ * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(d_in_.get(), inputs_.data(), in_bytes, cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
        dim3 grid((outdim_ + 127) / 128, batch);
        dense_relu<<<grid, 128, 0, stream_>>>(d_in_.get(), d_w_.get(), d_out_.get(), batch, feat_, outdim_);
        CUDA_CHECK(cudaMemcpyAsync(h_out_.get(), d_out_.get(), size_t(batch) * outdim_ * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return batch;
    }

    const float* output() const { return h_out_.get(); }

private:
    int max_batch_, feat_, outdim_;
    std::vector<float> inputs_;
    DeviceBuffer d_in_, d_w_, d_out_;
    DeviceBuffer h_out_; // pinned readback, same smart-pointer type as the device buffers
    cudaStream_t stream_ = nullptr;
};

int main()
{
    Batcher batcher(32, 4096, 1000);
    std::vector<std::vector<float>> requests(32, std::vector<float>(4096, 0.5f));
    int n = batcher.submit(requests);
    double s = 0.0;
    for (int i = 0; i < n * 1000; ++i) s += batcher.output()[i];
    printf("batch of %d: activation sum %.3f\n", n, s);
    return 0;
}

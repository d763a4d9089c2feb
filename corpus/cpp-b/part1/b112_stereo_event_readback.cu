// case: stereo depth pipeline: disparity is copied into pinned memory with cudaMemcpyAsync, an event is recorded after the copy and cudaEventSynchronize waits on it before the host reads the depth map and the elapsed time
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void block_match(const float* left, const float* right, float* disparity, int w, int h, int max_d) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float best = 1e30f;
    int best_d = 0;
    for (int d = 0; d < max_d && x - d >= 0; ++d) {
        float diff = left[y * w + x] - right[y * w + x - d];
        float cost = diff * diff;
        if (cost < best) { best = cost; best_d = d; }
    }
    disparity[y * w + x] = static_cast<float>(best_d);
}

class StereoMatcher {
public:
    StereoMatcher(int w, int h) : w_(w), h_(h) {
        size_t bytes = static_cast<size_t>(w_) * h_ * sizeof(float);
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&done_));
        CUDA_CHECK(cudaMalloc(&d_left_, bytes));
        CUDA_CHECK(cudaMalloc(&d_right_, bytes));
        CUDA_CHECK(cudaMalloc(&d_disp_, bytes));
        CUDA_CHECK(cudaMallocHost(&h_disp_, bytes));
        CUDA_CHECK(cudaMemsetAsync(d_left_, 0, bytes, stream_));
        CUDA_CHECK(cudaMemsetAsync(d_right_, 0, bytes, stream_));
    }
    ~StereoMatcher() {
        cudaEventSynchronize(done_);
        cudaFreeHost(h_disp_);
        cudaFree(d_disp_);
        cudaFree(d_right_);
        cudaFree(d_left_);
        cudaEventDestroy(done_);
        cudaEventDestroy(start_);
        cudaStreamDestroy(stream_);
    }

    float match(int max_disparity, float* mean_out) {
        dim3 block(16, 16);
        dim3 grid((w_ + 15) / 16, (h_ + 15) / 16);
        CUDA_CHECK(cudaEventRecord(start_, stream_));
        block_match<<<grid, block, 0, stream_>>>(d_left_, d_right_, d_disp_, w_, h_, max_disparity);
        CUDA_CHECK(cudaMemcpyAsync(h_disp_, d_disp_, static_cast<size_t>(w_) * h_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaEventRecord(done_, stream_));
        CUDA_CHECK(cudaEventSynchronize(done_));

        double sum = 0.0;
        for (int i = 0; i < w_ * h_; ++i) sum += h_disp_[i];
        *mean_out = static_cast<float>(sum / (static_cast<double>(w_) * h_));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, done_));
        return ms;
    }

private:
    int w_, h_;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t start_ = nullptr, done_ = nullptr;
    float *d_left_ = nullptr, *d_right_ = nullptr, *d_disp_ = nullptr;
    float* h_disp_ = nullptr;
};

int main() {
    auto matcher = std::make_unique<StereoMatcher>(1280, 720);
    float mean = 0.0f;
    float ms = matcher->match(64, &mean);
    std::printf("mean disparity %.2f in %.3f ms\n", mean, ms);
    return 0;
}

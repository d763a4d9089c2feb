// case: inference request batcher gathers requests into a std::vector and uploads it with cudaMemcpyAsync (pageable), and reads responses out of a write-combined cudaHostAlloc buffer after the sync
// expect: pageable_async_copy=1, write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <deque>
#include <cstdint>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t e = (call);                                               \
        if (e != cudaSuccess) {                                               \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                  \
                         cudaGetErrorString(e), __FILE__, __LINE__);          \
            std::exit(1);                                                     \
        }                                                                     \
    } while (0)

static constexpr int kFeatures = 1024;
static constexpr int kClasses = 16;

struct Request {
    uint64_t id;
    std::vector<float> features;  // kFeatures values
};

struct Response {
    uint64_t id;
    int label;
    float score;
};

__global__ void linear_head(const float* x, const float* w, float* y, int batch) {
    int r = blockIdx.x;
    int c = threadIdx.x;
    if (r >= batch || c >= kClasses) return;
    float acc = 0.f;
    for (int k = 0; k < kFeatures; ++k) acc += x[r * kFeatures + k] * w[k * kClasses + c];
    y[r * kClasses + c] = acc;
}

class Batcher {
public:
    explicit Batcher(int max_batch) : max_batch_(max_batch) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_x_, sizeof(float) * max_batch * kFeatures));
        CUDA_CHECK(cudaMalloc(&d_w_, sizeof(float) * kFeatures * kClasses));
        CUDA_CHECK(cudaMalloc(&d_y_, sizeof(float) * max_batch * kClasses));
        // "fast" pinned buffer for the results
        CUDA_CHECK(cudaHostAlloc(&h_y_, sizeof(float) * max_batch * kClasses, cudaHostAllocWriteCombined));
        CUDA_CHECK(cudaMemsetAsync(d_w_, 0, sizeof(float) * kFeatures * kClasses, stream_));
        batch_.reserve(static_cast<size_t>(max_batch) * kFeatures);
    }
    ~Batcher() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_y_);
        cudaFree(d_x_);
        cudaFree(d_w_);
        cudaFree(d_y_);
        cudaStreamDestroy(stream_);
    }

    std::vector<Response> run(std::deque<Request>& queue) {
        std::vector<Response> out;
        std::vector<uint64_t> ids;
        batch_.clear();
        while (!queue.empty() && static_cast<int>(ids.size()) < max_batch_) {
            Request& r = queue.front();
            batch_.insert(batch_.end(), r.features.begin(), r.features.end());
            ids.push_back(r.id);
            queue.pop_front();
        }
        const int n = static_cast<int>(ids.size());
        if (n == 0) return out;

        const size_t in_bytes = batch_.size() * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(d_x_, batch_.data(), in_bytes, cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
        linear_head<<<n, 32, 0, stream_>>>(d_x_, d_w_, d_y_, n);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_y_, d_y_, sizeof(float) * n * kClasses, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));

        for (int r = 0; r < n; ++r) {
            int best = 0;
            float best_score = h_y_[r * kClasses]; // EXPECT: write_combined_host_read
            for (int c = 1; c < kClasses; ++c) {
                if (h_y_[r * kClasses + c] > best_score) { best_score = h_y_[r * kClasses + c]; best = c; }
            }
            out.push_back(Response{ids[r], best, best_score});
        }
        return out;
    }

private:
    int max_batch_;
    cudaStream_t stream_{};
    float* d_x_ = nullptr;
    float* d_w_ = nullptr;
    float* d_y_ = nullptr;
    float* h_y_ = nullptr;
    std::vector<float> batch_;
};

int main() {
    Batcher batcher(64);
    std::deque<Request> queue;
    for (uint64_t i = 0; i < 200; ++i) queue.push_back(Request{i, std::vector<float>(kFeatures, 0.01f * i)});
    size_t served = 0;
    while (!queue.empty()) served += batcher.run(queue).size();
    std::printf("served %zu\n", served);
    return 0;
}

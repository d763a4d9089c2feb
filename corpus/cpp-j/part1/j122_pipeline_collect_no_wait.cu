// case: an inference pipeline stage uploads its weights from a std::vector with cudaMemcpyAsync (pageable) and records a completion event in enqueue() but collect() copies the pinned logits into the caller's vector without waiting on that event or the stream
// expect: missing_sync=1, pageable_async_copy=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e__ = (x); if (e__ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e__)); std::exit(1); } } while (0)

__global__ void linear_logits(const float* x, const float* w, float* logits, int classes, int dim) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= classes) return;
    float acc = 0.f;
    for (int d = 0; d < dim; ++d) acc += w[c * dim + d] * x[d];
    logits[c] = acc;
}

class ClassifierStage {
public:
    ClassifierStage(int classes, int dim) : classes_(classes), dim_(dim) {
        CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CHECK(cudaEventCreate(&ready_));
        CHECK(cudaMalloc(&d_w_, sizeof(float) * classes * dim));
        CHECK(cudaMalloc(&d_x_, sizeof(float) * dim));
        CHECK(cudaMalloc(&d_logits_, sizeof(float) * classes));
        CHECK(cudaMallocHost(&h_x_, sizeof(float) * dim));
        CHECK(cudaMallocHost(&h_logits_, sizeof(float) * classes));
        std::vector<float> w(size_t(classes) * dim);
        for (size_t i = 0; i < w.size(); ++i) w[i] = float((i * 7) % 11) - 5.f;
        CHECK(cudaMemcpyAsync(d_w_, w.data(), sizeof(float) * w.size(), cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
    }
    ~ClassifierStage() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_logits_); cudaFreeHost(h_x_);
        cudaFree(d_logits_); cudaFree(d_x_); cudaFree(d_w_);
        cudaEventDestroy(ready_); cudaStreamDestroy(stream_);
    }
    void enqueue(const std::vector<float>& features) {
        std::copy(features.begin(), features.end(), h_x_);
        CHECK(cudaMemcpyAsync(d_x_, h_x_, sizeof(float) * dim_, cudaMemcpyHostToDevice, stream_));
        linear_logits<<<(classes_ + 127) / 128, 128, 0, stream_>>>(d_x_, d_w_, d_logits_, classes_, dim_);
        CHECK(cudaMemcpyAsync(h_logits_, d_logits_, sizeof(float) * classes_, cudaMemcpyDeviceToHost, stream_));
        CHECK(cudaEventRecord(ready_, stream_));
    }
    void collect(std::vector<float>& out) {
        out.assign(h_logits_, h_logits_ + classes_); // EXPECT: missing_sync
    }
private:
    int classes_, dim_;
    cudaStream_t stream_;
    cudaEvent_t ready_;
    float *d_w_, *d_x_, *d_logits_, *h_x_, *h_logits_;
};

int main() {
    const int classes = 50000, dim = 256;
    ClassifierStage stage(classes, dim);
    std::vector<float> features(dim, 0.25f), logits;
    stage.enqueue(features);
    stage.collect(logits);
    int best = int(std::max_element(logits.begin(), logits.end()) - logits.begin());
    printf("predicted class %d (%f)\n", best, logits[best]);
    return 0;
}

// Image classifier session that owns everything its graph touches: the normalisation
// constants (a std::vector member the graph uploads from on every replay), the device
// buffers, the pinned staging and the executable graph. The destructor waits for the
// stream and destroys the graph before any member is released.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "session: %s (%s:%d)\n", cudaGetErrorString(e_),         \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

constexpr int kChannels = 3;
constexpr int kSide = 224;
constexpr int kClasses = 1000;

__global__ void normalize_hwc_to_chw(const unsigned char* __restrict__ img,
                                     const float* __restrict__ norm, float* __restrict__ out,
                                     int side) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= side * side) return;
    for (int c = 0; c < kChannels; ++c) {
        float v = img[p * kChannels + c] / 255.0f;
        out[c * side * side + p] = (v - norm[c]) / norm[kChannels + c];
    }
}

__global__ void pool_and_classify(const float* __restrict__ chw, const float* __restrict__ head,
                                  float* __restrict__ logits, int side) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kClasses) return;
    float acc = 0.0f;
    for (int c = 0; c < kChannels; ++c) {
        float mean = 0.0f;
        for (int p = 0; p < side * side; p += 64) mean += chw[c * side * side + p];
        acc += head[k * kChannels + c] * mean;
    }
    logits[k] = acc;
}

class ClassifierSession {
public:
    explicit ClassifierSession(std::vector<float> norm) : norm_(std::move(norm)) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(&h_img_, kImgBytes));
        CUDA_CHECK(cudaMallocHost(&h_logits_, kClasses * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_img_, kImgBytes));
        CUDA_CHECK(cudaMalloc(&d_norm_, 2 * kChannels * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_chw_, sizeof(float) * kSide * kSide * kChannels));
        CUDA_CHECK(cudaMalloc(&d_head_, kClasses * kChannels * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_logits_, kClasses * sizeof(float)));
        std::vector<float> head(kClasses * kChannels);
        for (size_t i = 0; i < head.size(); ++i) head[i] = 0.001f * static_cast<float>(i % 97);
        CUDA_CHECK(cudaMemcpy(d_head_, head.data(), head.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize());

        cudaGraph_t graph;
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        CUDA_CHECK(cudaMemcpyAsync(d_norm_, norm_.data(), 2 * kChannels * sizeof(float),
                                   cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemcpyAsync(d_img_, h_img_, kImgBytes, cudaMemcpyHostToDevice, stream_));
        normalize_hwc_to_chw<<<(kSide * kSide + 255) / 256, 256, 0, stream_>>>(d_img_, d_norm_, d_chw_, kSide);
        pool_and_classify<<<(kClasses + 127) / 128, 128, 0, stream_>>>(d_chw_, d_head_, d_logits_, kSide);
        CUDA_CHECK(cudaMemcpyAsync(h_logits_, d_logits_, kClasses * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    ~ClassifierSession() {
        cudaStreamSynchronize(stream_);
        cudaGraphExecDestroy(exec_);
        cudaFree(d_logits_);
        cudaFree(d_head_);
        cudaFree(d_chw_);
        cudaFree(d_norm_);
        cudaFree(d_img_);
        cudaFreeHost(h_logits_);
        cudaFreeHost(h_img_);
        cudaStreamDestroy(stream_);
    }  // norm_ is released after this body, with the graph already gone

    ClassifierSession(const ClassifierSession&) = delete;
    ClassifierSession& operator=(const ClassifierSession&) = delete;

    unsigned char* input() { return h_img_; }

    int classify() {
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        int best = 0;
        for (int k = 1; k < kClasses; ++k) best = h_logits_[k] > h_logits_[best] ? k : best;
        return best;
    }

private:
    static constexpr size_t kImgBytes = static_cast<size_t>(kSide) * kSide * kChannels;
    std::vector<float> norm_;
    cudaStream_t stream_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    unsigned char* h_img_ = nullptr;
    float* h_logits_ = nullptr;
    unsigned char* d_img_ = nullptr;
    float* d_norm_ = nullptr;
    float* d_chw_ = nullptr;
    float* d_head_ = nullptr;
    float* d_logits_ = nullptr;
};

int main() {
    ClassifierSession session({0.485f, 0.456f, 0.406f, 0.229f, 0.224f, 0.225f});
    int votes[kClasses] = {0};
    const size_t img_bytes = static_cast<size_t>(kSide) * kSide * kChannels;
    for (int image = 0; image < 500; ++image) {
        unsigned char* img = session.input();
        for (size_t i = 0; i < img_bytes; ++i) img[i] = static_cast<unsigned char>((i * 13 + image * 7) & 0xff);
        ++votes[session.classify()];
    }
    int top = 0;
    for (int k = 1; k < kClasses; ++k) top = votes[k] > votes[top] ? k : top;
    std::printf("most frequent class: %d (%d images)\n", top, votes[top]);
    return 0;
}

// Image classifier front end served from a CUDA graph: the graph uploads the per-channel
// normalisation constants, converts an 8-bit HWC image to normalised CHW floats, pools it
// and applies a linear head. Images arrive through a pinned staging buffer.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "classifier: %s (%s:%d)\n", cudaGetErrorString(e_),      \
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

// mean[0..2], std[0..2] of the training set, as the model card gives them.
static std::vector<float> load_normalization(const std::string& model) {
    if (model == "resnet50-imagenet") return {0.485f, 0.456f, 0.406f, 0.229f, 0.224f, 0.225f};
    return {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
}

int main(int argc, char** argv) {
    const std::string model = argc > 1 ? argv[1] : "resnet50-imagenet";
    const size_t img_bytes = static_cast<size_t>(kSide) * kSide * kChannels;
    const size_t chw_bytes = sizeof(float) * kSide * kSide * kChannels;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    unsigned char *h_img, *d_img;
    float *d_norm, *d_chw, *d_head, *d_logits, *h_logits;
    CUDA_CHECK(cudaMallocHost(&h_img, img_bytes));
    CUDA_CHECK(cudaMallocHost(&h_logits, kClasses * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_img, img_bytes));
    CUDA_CHECK(cudaMalloc(&d_norm, 2 * kChannels * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_chw, chw_bytes));
    CUDA_CHECK(cudaMalloc(&d_head, kClasses * kChannels * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_logits, kClasses * sizeof(float)));
    {
        std::vector<float> head(kClasses * kChannels);
        for (size_t i = 0; i < head.size(); ++i) head[i] = 0.001f * static_cast<float>(i % 97);
        CUDA_CHECK(cudaMemcpy(d_head, head.data(), head.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize());
    }

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    {
        std::vector<float> norm = load_normalization(model);
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        CUDA_CHECK(cudaMemcpyAsync(d_norm, norm.data(), 2 * kChannels * sizeof(float),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(d_img, h_img, img_bytes, cudaMemcpyHostToDevice, stream));
        normalize_hwc_to_chw<<<(kSide * kSide + 255) / 256, 256, 0, stream>>>(d_img, d_norm, d_chw, kSide);
        pool_and_classify<<<(kClasses + 127) / 128, 128, 0, stream>>>(d_chw, d_head, d_logits, kSide);
        CUDA_CHECK(cudaMemcpyAsync(h_logits, d_logits, kClasses * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    }  // norm's storage is released here

    int histogram[kClasses] = {0};
    for (int image = 0; image < 500; ++image) {
        for (size_t i = 0; i < img_bytes; ++i) h_img[i] = static_cast<unsigned char>((i * 13 + image * 7) & 0xff);
        CUDA_CHECK(cudaGraphLaunch(exec, stream));  // EXPECT: graph_uses_freed_memory
        CUDA_CHECK(cudaStreamSynchronize(stream));
        int best = 0;
        for (int k = 1; k < kClasses; ++k) best = h_logits[k] > h_logits[best] ? k : best;
        ++histogram[best];
    }
    int top = 0;
    for (int k = 1; k < kClasses; ++k) top = histogram[k] > histogram[top] ? k : top;
    std::printf("most frequent class: %d (%d images)\n", top, histogram[top]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_head));
    CUDA_CHECK(cudaFree(d_chw));
    CUDA_CHECK(cudaFree(d_norm));
    CUDA_CHECK(cudaFree(d_img));
    CUDA_CHECK(cudaFreeHost(h_logits));
    CUDA_CHECK(cudaFreeHost(h_img));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}

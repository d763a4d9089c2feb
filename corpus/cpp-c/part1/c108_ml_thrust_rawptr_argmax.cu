// case: a greedy decoder keeps logits in a thrust::device_vector and hands thrust::raw_pointer_cast(logits.data()) to its kernels; the host-side argmax helper template then indexes that raw device pointer directly instead of going through the vector or a copy.
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <cstdio>
#include <vector>

constexpr int kVocab = 32000;
constexpr int kHidden = 1024;

__global__ void lm_head(const float* hidden, const float* w, float* logits, int vocab, int dim) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vocab) return;
    float acc = 0.f;
    for (int k = 0; k < dim; ++k) acc += hidden[k] * w[static_cast<size_t>(v) * dim + k];
    logits[v] = acc;
}

template <typename T>
int host_argmax(const T* scores, int n) {
    int best = 0;
    T best_val = scores[0];  // EXPECT: host_deref_device_ptr
    for (int i = 1; i < n; ++i) {
        if (scores[i] > best_val) { best_val = scores[i]; best = i; }
    }
    return best;
}

struct GreedyDecoder {
    thrust::device_vector<float> weights;
    thrust::device_vector<float> hidden;
    thrust::device_vector<float> logits;
    cudaStream_t stream{};

    GreedyDecoder() : weights(static_cast<size_t>(kVocab) * kHidden, 0.001f), hidden(kHidden, 1.0f), logits(kVocab) {
        cudaStreamCreate(&stream);
    }
    ~GreedyDecoder() { cudaStreamDestroy(stream); }

    int next_token() {
        float* d_logits = thrust::raw_pointer_cast(logits.data());
        lm_head<<<(kVocab + 255) / 256, 256, 0, stream>>>(
            thrust::raw_pointer_cast(hidden.data()), thrust::raw_pointer_cast(weights.data()),
            d_logits, kVocab, kHidden);
        cudaStreamSynchronize(stream);
        return host_argmax(d_logits, kVocab);
    }
};

int main() {
    GreedyDecoder dec;
    std::vector<int> tokens;
    tokens.push_back(dec.next_token());
    std::printf("first generated token id: %d\n", tokens.front());
    return 0;
}

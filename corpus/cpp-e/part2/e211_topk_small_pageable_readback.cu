// case: an inference server's sampler copies the 256 top-k candidates (a constant 2 KiB) with cudaMemcpyAsync into a std::array on the stack and reads them right away: a device-to-pageable copy returns only once it has completed, and at 2 KiB it is under the pageable-copy threshold: correct.
// expect: none
#include <cuda_runtime.h>
#include <array>
#include <cstdio>
#include <utility>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::abort(); } } while (0)

constexpr int kVocab = 50304;
constexpr int kTopK = 256;

struct Candidate { int token; float logit; };

__global__ void coarse_topk(const float* logits, int vocab, Candidate* out) {
    // one block, strided pick of the first kTopK buckets' maxima (good enough for sampling)
    int k = threadIdx.x;
    int per = vocab / kTopK;
    int best = k * per;
    for (int v = k * per; v < (k + 1) * per; ++v)
        if (logits[v] > logits[best]) best = v;
    out[k] = Candidate{best, logits[best]};
}

__global__ void synth_logits(float* logits, int vocab, int step) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vocab) logits[v] = float((v * 2654435761u + step) % 1000) * 0.01f;
}

class Sampler {
public:
    Sampler() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_logits_, kVocab * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_cands_, kTopK * sizeof(Candidate)));
    }
    ~Sampler() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_cands_);
        cudaFree(d_logits_);
        cudaStreamDestroy(stream_);
    }

    int next_token(int step) {
        synth_logits<<<(kVocab + 255) / 256, 256, 0, stream_>>>(d_logits_, kVocab, step);
        coarse_topk<<<1, kTopK, 0, stream_>>>(d_logits_, kVocab, d_cands_);
        std::array<Candidate, kTopK> top{};
        CUDA_CHECK(cudaMemcpyAsync(top.data(), d_cands_, sizeof(top), cudaMemcpyDeviceToHost, stream_));
        // pageable destination: the call has returned only after the copy finished
        Candidate best = top[0];
        for (const Candidate& c : top)
            if (c.logit > best.logit) best = c;
        return best.token;
    }

private:
    cudaStream_t stream_{};
    float* d_logits_ = nullptr;
    Candidate* d_cands_ = nullptr;
};

int main() {
    Sampler s;
    for (int step = 0; step < 8; ++step) std::printf("step %d -> %d\n", step, s.next_token(step));
    return 0;
}

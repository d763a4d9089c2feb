// case: genotype-likelihood scorer keeps its host inputs and outputs in std::vector with a cudaMallocHost-backed allocator (pinned_allocator.h), so the large cudaMemcpyAsync calls are not pageable, and reads the scores only after cudaStreamSynchronize.
// expect: none
#include "pinned_allocator.h"
#include <cmath>
#include <cstdio>

__global__ void genotype_ll(const unsigned char* ref_counts, const unsigned char* alt_counts,
                            float err, int n, float3* ll) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float r = ref_counts[i], a = alt_counts[i];
    float le = __logf(err), l1e = __logf(1.0f - err), lh = __logf(0.5f);
    ll[i] = make_float3(r * l1e + a * le, (r + a) * lh, r * le + a * l1e);
}

class LikelihoodScorer {
public:
    explicit LikelihoodScorer(int n) : n_(n), ref_(n), alt_(n), ll_(n) {
        cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
        cudaMalloc(&d_ref_, n_);
        cudaMalloc(&d_alt_, n_);
        cudaMalloc(&d_ll_, n_ * sizeof(float3));
    }
    ~LikelihoodScorer() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_ref_); cudaFree(d_alt_); cudaFree(d_ll_);
        cudaStreamDestroy(stream_);
    }

    int count_hets(unsigned seed) {
        for (int i = 0; i < n_; ++i) {
            ref_[i] = (unsigned char)((seed + i * 13) % 40);
            alt_[i] = (unsigned char)((seed * 7 + i * 5) % 40);
        }
        cudaMemcpyAsync(d_ref_, ref_.data(), ref_.size(), cudaMemcpyHostToDevice, stream_);
        cudaMemcpyAsync(d_alt_, alt_.data(), alt_.size(), cudaMemcpyHostToDevice, stream_);
        genotype_ll<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_ref_, d_alt_, 0.01f, n_, d_ll_);
        cudaMemcpyAsync(ll_.data(), d_ll_, ll_.size() * sizeof(float3), cudaMemcpyDeviceToHost, stream_);
        cudaStreamSynchronize(stream_);
        int hets = 0;
        for (const float3& g : ll_) hets += (g.y > g.x && g.y > g.z);
        return hets;
    }

private:
    int n_;
    pinned_vector<unsigned char> ref_, alt_;
    pinned_vector<float3> ll_;
    cudaStream_t stream_{};
    unsigned char *d_ref_ = nullptr, *d_alt_ = nullptr;
    float3* d_ll_ = nullptr;
};

int main() {
    LikelihoodScorer scorer(1 << 22);
    for (unsigned s = 0; s < 3; ++s) printf("batch %u: %d heterozygous sites\n", s, scorer.count_hets(s));
    return 0;
}

// case: masked attention-score kernel whose mask is allocated and uploaded under #ifdef USE_CAUSAL_MASK, which this file #defines, so in the default build the mask is allocated before the launch
// expect: none
#define USE_CAUSAL_MASK 1

#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e_ = (call);                                            \
        if (e_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int kSeq = 128;
constexpr int kHeadDim = 32;

__global__ void masked_scores(const float *q, const float *k, const unsigned char *mask, float *s, float scale)
{
    int row = blockIdx.x, col = threadIdx.x;
    float acc = 0.f;
    for (int d = 0; d < kHeadDim; ++d) acc += q[row * kHeadDim + d] * k[col * kHeadDim + d];
    s[row * kSeq + col] = mask[row * kSeq + col] ? acc * scale : -FLT_MAX;
}

int main()
{
    std::vector<float> h_q(kSeq * kHeadDim, 0.1f), h_k(kSeq * kHeadDim, 0.2f), h_s(kSeq * kSeq);

    float *d_q, *d_k, *d_s;
    unsigned char *d_mask = nullptr;
    CUDA_CHECK(cudaMalloc(&d_q, h_q.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_k, h_k.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_s, h_s.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_q, h_q.data(), h_q.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_k, h_k.data(), h_k.size() * sizeof(float), cudaMemcpyHostToDevice));

#ifdef USE_CAUSAL_MASK
    std::vector<unsigned char> h_mask(kSeq * kSeq);
    for (int r = 0; r < kSeq; ++r)
        for (int c = 0; c < kSeq; ++c) h_mask[r * kSeq + c] = c <= r;
    CUDA_CHECK(cudaMalloc(&d_mask, kSeq * kSeq));
    CUDA_CHECK(cudaMemcpy(d_mask, h_mask.data(), kSeq * kSeq, cudaMemcpyHostToDevice));
#endif

    masked_scores<<<kSeq, kSeq>>>(d_q, d_k, d_mask, d_s, 0.17f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_s.data(), d_s, h_s.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("s[0][0] = %f, s[0][1] = %g\n", h_s[0], h_s[1]);

    CUDA_CHECK(cudaFree(d_q));
    CUDA_CHECK(cudaFree(d_k));
    CUDA_CHECK(cudaFree(d_s));
    CUDA_CHECK(cudaFree(d_mask));
    return 0;
}

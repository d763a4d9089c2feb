// case: masked attention-score kernel whose mask is allocated and uploaded only under #ifdef USE_ATTENTION_MASK (not defined in this build) while the launch passing it and the kernel's read of mask[] are unconditional
// expect: unallocated_pointer=1
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

constexpr int kSeq = 256;
constexpr int kHeadDim = 64;

__global__ void scores(const float *q, const float *k, const unsigned char *mask, float *s, float scale)
{
    int row = blockIdx.x;
    int col = threadIdx.x;
    float acc = 0.f;
    for (int d = 0; d < kHeadDim; ++d) acc += q[row * kHeadDim + d] * k[col * kHeadDim + d];
    s[row * kSeq + col] = mask[row * kSeq + col] ? acc * scale : -FLT_MAX;
}

int main()
{
    std::vector<float> h_q(kSeq * kHeadDim), h_k(kSeq * kHeadDim), h_s(kSeq * kSeq);
    for (int i = 0; i < kSeq * kHeadDim; ++i) {
        h_q[i] = 0.01f * float(i % 50);
        h_k[i] = 0.02f * float(i % 31);
    }

    float *d_q, *d_k, *d_s;
    unsigned char *d_mask = nullptr;
    CUDA_CHECK(cudaMalloc(&d_q, kSeq * kHeadDim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_k, kSeq * kHeadDim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_s, kSeq * kSeq * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_q, h_q.data(), kSeq * kHeadDim * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_k, h_k.data(), kSeq * kHeadDim * sizeof(float), cudaMemcpyHostToDevice));

#ifdef USE_ATTENTION_MASK
    std::vector<unsigned char> h_mask(kSeq * kSeq);
    for (int r = 0; r < kSeq; ++r)
        for (int c = 0; c < kSeq; ++c) h_mask[r * kSeq + c] = c <= r;  // causal
    CUDA_CHECK(cudaMalloc(&d_mask, kSeq * kSeq));
    CUDA_CHECK(cudaMemcpy(d_mask, h_mask.data(), kSeq * kSeq, cudaMemcpyHostToDevice));
#endif

    scores<<<kSeq, kSeq>>>(d_q, d_k, d_mask, d_s, 0.125f); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_s.data(), d_s, kSeq * kSeq * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("s[1][0] = %f\n", h_s[kSeq]);

    CUDA_CHECK(cudaFree(d_q));
    CUDA_CHECK(cudaFree(d_k));
    CUDA_CHECK(cudaFree(d_s));
    CUDA_CHECK(cudaFree(d_mask));
    return 0;
}

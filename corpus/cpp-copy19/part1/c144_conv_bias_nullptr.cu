// case: 1x1 convolution layer whose bias pointer is declared nullptr and never allocated, yet the bias is uploaded and the kernel adds bias[oc] unconditionally
// expect: unallocated_pointer=2
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e_ = (call);                                            \
        if (e_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int kInC = 64;
constexpr int kOutC = 128;
constexpr int kHW = 56 * 56;

__global__ void conv1x1(const float *in, const float *w, const float *bias, float *out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y;
    if (p >= kHW) return;
    float acc = bias[oc];
    for (int ic = 0; ic < kInC; ++ic) acc += w[oc * kInC + ic] * in[ic * kHW + p];
    out[oc * kHW + p] = acc > 0.f ? acc : 0.f;
}

int main()
{
    std::vector<float> h_in(kInC * kHW), h_w(kOutC * kInC), h_b(kOutC, 0.05f), h_out(kOutC * kHW);
    for (size_t i = 0; i < h_in.size(); ++i) h_in[i] = float(i % 9) * 0.1f;
    for (size_t i = 0; i < h_w.size(); ++i) h_w[i] = float(int(i % 7) - 3) * 0.02f;

    float *d_in = nullptr, *d_w = nullptr, *d_bias = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, h_in.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w, h_w.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, h_out.size() * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), h_in.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_w, h_w.data(), h_w.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_bias, h_b.data(), kOutC * sizeof(float), cudaMemcpyHostToDevice)); // EXPECT: unallocated_pointer

    dim3 grid((kHW + 255) / 256, kOutC);
    conv1x1<<<grid, 256>>>(d_in, d_w, d_bias, d_out); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, h_out.size() * sizeof(float), cudaMemcpyDeviceToHost));

    double s = 0.0;
    for (float v : h_out) s += v;
    std::printf("activation sum %.3f\n", s);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}

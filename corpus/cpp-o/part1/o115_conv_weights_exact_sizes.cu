// case: CNN inference layer uploads weights, bias and a padded input with byte counts that equal (or stay within) each allocation, copies a sub-range of the output at an offset, and memsets the accumulator with its exact size: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <array>
#include <vector>

#define CUDA_TRY(x) do { cudaError_t st_ = (x); if (st_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(st_)); exit(1); } } while (0)

#define IN_C 64
#define OUT_C 128
#define KS 3
#define IMG 56
#define PAD 1
constexpr int PADDED = IMG + 2 * PAD;
constexpr size_t W_ELEMS = (size_t)OUT_C * IN_C * KS * KS;
constexpr size_t IN_ELEMS = (size_t)IN_C * PADDED * PADDED;
constexpr size_t OUT_ELEMS = (size_t)OUT_C * IMG * IMG;

__global__ void conv3x3(const float* __restrict__ in, const float* __restrict__ w,
                        const float* __restrict__ bias, float* __restrict__ out)
{
    int oc = blockIdx.z, y = blockIdx.y, x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= IMG) return;
    float acc = bias[oc];
    for (int ic = 0; ic < IN_C; ++ic)
        for (int ky = 0; ky < KS; ++ky)
            for (int kx = 0; kx < KS; ++kx)
                acc += in[(ic * PADDED + y + ky) * PADDED + x + kx] *
                       w[((oc * IN_C + ic) * KS + ky) * KS + kx];
    out[(oc * IMG + y) * IMG + x] += fmaxf(acc, 0.f);
}

int main()
{
    std::vector<float> h_w(W_ELEMS), h_in(IN_ELEMS, 0.f);
    std::array<float, OUT_C> h_bias{};
    for (size_t i = 0; i < W_ELEMS; ++i) h_w[i] = ((i * 13) % 29 - 14) * 1e-3f;
    for (int c = 0; c < OUT_C; ++c) h_bias[c] = 0.01f * c;
    for (int c = 0; c < IN_C; ++c)
        for (int y = 0; y < IMG; ++y)
            for (int x = 0; x < IMG; ++x)
                h_in[(c * PADDED + y + PAD) * PADDED + x + PAD] = ((c + y + x) % 7) * 0.1f;

    float *d_w, *d_in, *d_bias, *d_out;
    CUDA_TRY(cudaMalloc(&d_w, W_ELEMS * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_in, IN_ELEMS * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_bias, sizeof(h_bias)));
    CUDA_TRY(cudaMalloc(&d_out, OUT_ELEMS * sizeof(float)));

    CUDA_TRY(cudaMemcpy(d_w, h_w.data(), W_ELEMS * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_in, h_in.data(), IN_ELEMS * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_bias, h_bias.data(), OUT_C * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemset(d_out, 0, OUT_ELEMS * sizeof(float)));

    dim3 blk(64), grd((IMG + 63) / 64, IMG, OUT_C);
    conv3x3<<<grd, blk>>>(d_in, d_w, d_bias, d_out);
    CUDA_TRY(cudaGetLastError());

    // Only the last 16 output channels feed the next (grouped) layer on the host.
    constexpr int TAIL_C = 16;
    std::vector<float> tail((size_t)TAIL_C * IMG * IMG);
    CUDA_TRY(cudaMemcpy(tail.data(), d_out + (size_t)(OUT_C - TAIL_C) * IMG * IMG,
                        (size_t)TAIL_C * IMG * IMG * sizeof(float), cudaMemcpyDeviceToHost));
    float first_px;
    CUDA_TRY(cudaMemcpy(&first_px, d_out, sizeof(first_px), cudaMemcpyDeviceToHost));

    double s = 0.0;
    for (float v : tail) s += v;
    printf("tail activation sum %.4f, out[0] = %.4f\n", s, first_px);

    CUDA_TRY(cudaFree(d_out));
    CUDA_TRY(cudaFree(d_bias));
    CUDA_TRY(cudaFree(d_in));
    CUDA_TRY(cudaFree(d_w));
    return 0;
}

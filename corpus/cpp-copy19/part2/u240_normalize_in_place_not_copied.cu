// case: feature vectors are uploaded and L2-normalised in place by a kernel, but the program then prints the host copy and frees d_feat without copying the normalised rows back.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kRows = 4096;
constexpr int kDim = 128;

__global__ void l2_normalize_rows(float* feat, int dim)
{
    __shared__ float ss[kDim];
    float* row = feat + (size_t)blockIdx.x * dim;
    float v = row[threadIdx.x];
    ss[threadIdx.x] = v * v;
    __syncthreads();
    for (int s = kDim / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) ss[threadIdx.x] += ss[threadIdx.x + s];
        __syncthreads();
    }
    row[threadIdx.x] = v * rsqrtf(ss[0] + 1e-12f);
}

static void normalize_on_gpu(std::vector<float>& feat)
{
    float* d_feat = nullptr;
    const size_t bytes = feat.size() * sizeof(float);
    CUDA_CHECK(cudaMalloc(&d_feat, bytes));
    CUDA_CHECK(cudaMemcpy(d_feat, feat.data(), bytes, cudaMemcpyHostToDevice));
    l2_normalize_rows<<<kRows, kDim>>>(d_feat, kDim);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_feat)); // EXPECT: unread_kernel_output
}

int main()
{
    std::vector<float> feat(kRows * kDim);
    for (size_t i = 0; i < feat.size(); ++i) feat[i] = float((i * 13) % 29) - 14.f;

    normalize_on_gpu(feat);

    double norm0 = 0.0;
    for (int d = 0; d < kDim; ++d) norm0 += feat[d] * feat[d];
    std::printf("|row0| = %f (expected 1)\n", std::sqrt(norm0));
    return 0;
}

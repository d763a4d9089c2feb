// case: GEMM-with-split-K wrapper class that allocates its workspace lazily with `if (!d_ws_) cudaMalloc(...)` right before each use, so the workspace is allocated on every path reaching the memset and the launches
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int M = 256, N = 256, K = 4096, SPLITS = 8;

__global__ void gemm_partial(const float *A, const float *B, float *ws, int kchunk)
{
    int row = blockIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x, s = blockIdx.z;
    if (col >= N) return;
    float acc = 0.f;
    for (int k = s * kchunk; k < (s + 1) * kchunk; ++k) acc += A[row * K + k] * B[k * N + col];
    ws[(s * M + row) * N + col] = acc;
}

__global__ void reduce_splits(const float *ws, float *C)
{
    int row = blockIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= N) return;
    float acc = 0.f;
    for (int s = 0; s < SPLITS; ++s) acc += ws[(s * M + row) * N + col];
    C[row * N + col] = acc;
}

class SplitKGemm {
public:
    ~SplitKGemm() { cudaFree(d_ws_); }

    void run(const float *dA, const float *dB, float *dC) {
        float *ws = workspace();
        CUDA_CHECK(cudaMemset(ws, 0, size_t(SPLITS) * M * N * sizeof(float)));
        gemm_partial<<<dim3(N / 128, M, SPLITS), 128>>>(dA, dB, ws, K / SPLITS);
        reduce_splits<<<dim3(N / 128, M), 128>>>(ws, dC);
        CUDA_CHECK(cudaGetLastError());
    }

private:
    float *workspace() {
        if (!d_ws_) CUDA_CHECK(cudaMalloc(&d_ws_, size_t(SPLITS) * M * N * sizeof(float)));
        return d_ws_;
    }
    float *d_ws_ = nullptr;
};

int main()
{
    std::vector<float> hA(M * K, 0.01f), hB(K * N, 0.5f), hC(M * N);
    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));

    {
        SplitKGemm gemm;
        gemm.run(dA, dB, dC);
        gemm.run(dA, dB, dC);
    }
    CUDA_CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("C[0] = %f (expected %f)\n", hC[0], 0.01f * 0.5f * K);

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    return 0;
}

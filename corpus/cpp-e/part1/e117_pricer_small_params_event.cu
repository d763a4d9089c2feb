// case: A barrier-option pricer copies its 40-byte parameter struct from the stack with cudaMemcpyAsync (pageable but far below 64 KiB), streams paths into pinned memory, and reads the partial sums only after cudaEventSynchronize on an event recorded after the copy.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <functional>
#include <initializer_list>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

struct PricerParams {
    float spot, strike, barrier, rate, vol, maturity;
    int steps, paths;
    unsigned long long seed;
};

constexpr int kPaths = 1 << 20;
constexpr int kBlock = 256;
constexpr int kBlocks = kPaths / kBlock;

__global__ void price_paths(const PricerParams* p, float* block_sums)
{
    __shared__ float sh[kBlock];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float dt = p->maturity / p->steps, s = p->spot;
    unsigned long long st = p->seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
    bool knocked = false;
    for (int k = 0; k < p->steps && !knocked; ++k) {
        st ^= st << 13; st ^= st >> 7; st ^= st << 17;
        float z = ((st >> 40) * (1.0f / 16777216.0f) - 0.5f) * 3.4641f;
        s *= expf((p->rate - 0.5f * p->vol * p->vol) * dt + p->vol * sqrtf(dt) * z);
        knocked = s >= p->barrier;
    }
    sh[threadIdx.x] = knocked ? 0.f : fmaxf(s - p->strike, 0.f);
    __syncthreads();
    for (int off = blockDim.x / 2; off > 0; off >>= 1) {
        if (threadIdx.x < off) sh[threadIdx.x] += sh[threadIdx.x + off];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = sh[0];
}

int main()
{
    cudaStream_t s;
    cudaEvent_t done;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

    PricerParams* d_params = nullptr;
    float *d_sums = nullptr, *h_sums = nullptr;
    CUDA_CHECK(cudaMalloc(&d_params, sizeof(PricerParams)));
    CUDA_CHECK(cudaMalloc(&d_sums, kBlocks * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_sums, kBlocks * sizeof(float)));

    auto price = [&](float strike) -> double {
        PricerParams params{100.f, strike, 130.f, 0.02f, 0.25f, 1.0f, 365, kPaths, 42ull};
        CUDA_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(params), cudaMemcpyHostToDevice, s));
        price_paths<<<kBlocks, kBlock, 0, s>>>(d_params, d_sums);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_sums, d_sums, kBlocks * sizeof(float), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaEventRecord(done, s));
        CUDA_CHECK(cudaEventSynchronize(done));
        double total = 0.0;
        for (int b = 0; b < kBlocks; ++b) total += h_sums[b];
        return total / kPaths * std::exp(-0.02);
    };

    for (float k : {90.f, 100.f, 110.f}) std::printf("K=%.0f  price=%.4f\n", k, price(k));

    CUDA_CHECK(cudaFreeHost(h_sums));
    CUDA_CHECK(cudaFree(d_sums));
    CUDA_CHECK(cudaFree(d_params));
    CUDA_CHECK(cudaEventDestroy(done));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}

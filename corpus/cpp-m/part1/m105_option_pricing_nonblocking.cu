// case: A Monte Carlo option pricer launches its path kernel on a cudaStreamNonBlocking stream and reads the per-block partial sums back with a plain cudaMemcpy, which runs on the legacy default stream and does not wait for that stream (missing_sync at the cudaMemcpy).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(stmt)                                                           \
    do {                                                                           \
        cudaError_t e = (stmt);                                                    \
        if (e != cudaSuccess) {                                                    \
            std::fprintf(stderr, "CUDA failure %s: %s\n", #stmt,                   \
                         cudaGetErrorString(e));                                   \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kBlocks = 1024;
constexpr int kThreads = 256;
constexpr int kPathsPerThread = 64;

struct OptionSpec {
    float spot, strike, rate, vol, expiry;
};

__device__ inline unsigned xorshift(unsigned& s) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    return s;
}

__device__ inline float gaussian(unsigned& s) {
    float u1 = (xorshift(s) & 0xFFFFFF) / float(0x1000000) + 1e-7f;
    float u2 = (xorshift(s) & 0xFFFFFF) / float(0x1000000);
    return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

__global__ void price_paths(OptionSpec opt, unsigned seed, float* block_sums) {
    __shared__ float partial[kThreads];
    unsigned s = seed ^ (blockIdx.x * kThreads + threadIdx.x) * 2654435761u;
    if (s == 0) s = 1;
    float drift = (opt.rate - 0.5f * opt.vol * opt.vol) * opt.expiry;
    float diffusion = opt.vol * sqrtf(opt.expiry);
    float acc = 0.0f;
    for (int p = 0; p < kPathsPerThread; ++p) {
        float st = opt.spot * expf(drift + diffusion * gaussian(s));
        acc += fmaxf(st - opt.strike, 0.0f);
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = partial[0];
}

class McPricer {
public:
    McPricer() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_block_sums_, kBlocks * sizeof(float)));
    }
    ~McPricer() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        cudaFree(d_block_sums_);
        cudaStreamDestroy(stream_);
    }

    double price(const OptionSpec& opt, unsigned seed) {
        price_paths<<<kBlocks, kThreads, 0, stream_>>>(opt, seed, d_block_sums_);
        CUDA_CHECK(cudaGetLastError());

        std::vector<float> sums(kBlocks);
        CUDA_CHECK(cudaMemcpy(sums.data(), d_block_sums_, kBlocks * sizeof(float), cudaMemcpyDeviceToHost));  // EXPECT: missing_sync
        double total = 0.0;
        for (float v : sums) total += v;
        const double paths = double(kBlocks) * kThreads * kPathsPerThread;
        return std::exp(-opt.rate * opt.expiry) * total / paths;
    }

private:
    cudaStream_t stream_ = nullptr;
    float* d_block_sums_ = nullptr;
};

int main() {
    McPricer pricer;
    OptionSpec opt{100.0f, 105.0f, 0.03f, 0.2f, 1.0f};
    double mc = pricer.price(opt, 2024u);

    // Black-Scholes reference
    double d1 = (std::log(opt.spot / opt.strike) + (opt.rate + 0.5 * opt.vol * opt.vol) * opt.expiry) /
                (opt.vol * std::sqrt(opt.expiry));
    double d2 = d1 - opt.vol * std::sqrt(opt.expiry);
    auto ncdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
    double bs = opt.spot * ncdf(d1) - opt.strike * std::exp(-opt.rate * opt.expiry) * ncdf(d2);
    std::printf("monte carlo %.4f  black-scholes %.4f\n", mc, bs);
    return 0;
}

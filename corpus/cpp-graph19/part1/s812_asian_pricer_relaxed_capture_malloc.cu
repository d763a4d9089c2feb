// Monte Carlo pricer for an arithmetic Asian call. The batch graph is recorded on a
// non-blocking stream in relaxed capture mode, because the pricer sizes and allocates its
// per-block partial-sum buffer lazily, on the first batch it records (cudaMalloc is not
// captured; it runs at once and the graph uses the memory it returned).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "asian: %s at %s:%d\n", cudaGetErrorString(err_),         \
                         __FILE__, __LINE__);                                             \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

constexpr int kThreads = 256;
constexpr int kFixings = 52;  // weekly averaging

struct AsianContract {
    float spot, strike, rate, vol, maturity;
};

__device__ float gaussian(unsigned long long& s) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    float u1 = ((s >> 40) + 0.5f) * (1.0f / 16777216.0f);
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    float u2 = ((s >> 40) + 0.5f) * (1.0f / 16777216.0f);
    return sqrtf(-2.0f * logf(u1)) * cosf(6.283185307f * u2);
}

__global__ void asian_paths(AsianContract c, const unsigned long long* seed, int paths,
                            float* block_sums) {
    __shared__ float part[kThreads];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float payoff = 0.0f;
    if (i < paths) {
        unsigned long long s = *seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
        float dt = c.maturity / kFixings, st = c.spot, avg = 0.0f;
        for (int k = 0; k < kFixings; ++k) {
            st *= expf((c.rate - 0.5f * c.vol * c.vol) * dt + c.vol * sqrtf(dt) * gaussian(s));
            avg += st;
        }
        payoff = expf(-c.rate * c.maturity) * fmaxf(avg / kFixings - c.strike, 0.0f);
    }
    part[threadIdx.x] = payoff;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = part[0];
}

__global__ void finish_batch(const float* block_sums, int blocks, float* total,
                             unsigned long long* seed) {
    float acc = 0.0f;
    for (int b = 0; b < blocks; ++b) acc += block_sums[b];
    *total = acc;
    *seed = *seed * 2862933555777941757ull + 3037000493ull;  // next replay, new numbers
}

class AsianPricer {
public:
    AsianPricer(const AsianContract& c, int paths) : contract_(c), paths_(paths) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_seed_, sizeof(unsigned long long)));
        CUDA_CHECK(cudaMalloc(&d_total_, sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_total_, sizeof(float)));
        const unsigned long long seed = 20261127ull;
        CUDA_CHECK(cudaMemcpyAsync(d_seed_, &seed, sizeof(seed), cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));

        cudaGraph_t graph;
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
        record_batch();
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    ~AsianPricer() {
        cudaStreamSynchronize(stream_);
        cudaGraphExecDestroy(exec_);
        cudaFree(d_block_sums_);
        cudaFreeHost(h_total_);
        cudaFree(d_total_);
        cudaFree(d_seed_);
        cudaStreamDestroy(stream_);
    }

    double run_batch() {
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return *h_total_;
    }

private:
    void record_batch() {
        const int blocks = (paths_ + kThreads - 1) / kThreads;
        if (d_block_sums_ == nullptr) {
            CUDA_CHECK(cudaMalloc(&d_block_sums_, blocks * sizeof(float)));  // relaxed: allowed
        }
        asian_paths<<<blocks, kThreads, 0, stream_>>>(contract_, d_seed_, paths_, d_block_sums_);
        CUDA_CHECK(cudaGetLastError());
        finish_batch<<<1, 1, 0, stream_>>>(d_block_sums_, blocks, d_total_, d_seed_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_total_, d_total_, sizeof(float), cudaMemcpyDeviceToHost, stream_));
    }

    AsianContract contract_;
    int paths_;
    cudaStream_t stream_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    unsigned long long* d_seed_ = nullptr;
    float* d_block_sums_ = nullptr;
    float* d_total_ = nullptr;
    float* h_total_ = nullptr;
};

int main() {
    const int paths = 1 << 18;
    AsianPricer pricer({100.0f, 100.0f, 0.02f, 0.3f, 1.0f}, paths);
    double sum = 0.0;
    const int batches = 40;
    for (int b = 0; b < batches; ++b) sum += pricer.run_batch();
    std::printf("Asian call: %.4f over %d paths\n", sum / (static_cast<double>(paths) * batches),
                paths * batches);
    return 0;
}

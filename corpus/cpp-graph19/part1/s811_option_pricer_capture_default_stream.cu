// Monte Carlo pricer for a European call under geometric Brownian motion. The program keeps
// all of its work on one stream, the default one; a pricing batch (simulate paths, reduce the
// discounted payoffs, bring the sum back) is recorded into a graph and replayed until the
// standard error is small enough.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "pricer: %s at %s:%d\n", cudaGetErrorString(err_),       \
                         __FILE__, __LINE__);                                             \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

struct Contract {
    float spot, strike, rate, vol, maturity;
};

__device__ float uniform01(unsigned long long& state) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return ((state >> 40) + 0.5f) * (1.0f / 16777216.0f);
}

// Each replay draws fresh numbers: the batch counter advances on the device.
__global__ void simulate_paths(Contract c, unsigned long long* batch_counter, int paths,
                               float* sum, float* sum_sq) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= paths) return;
    unsigned long long state = (*batch_counter + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
    float u1 = uniform01(state), u2 = uniform01(state);
    float z = sqrtf(-2.0f * logf(u1)) * cosf(6.283185307f * u2);
    float st = c.spot * expf((c.rate - 0.5f * c.vol * c.vol) * c.maturity + c.vol * sqrtf(c.maturity) * z);
    float payoff = expf(-c.rate * c.maturity) * fmaxf(st - c.strike, 0.0f);
    atomicAdd(sum, payoff);
    atomicAdd(sum_sq, payoff * payoff);
}

__global__ void next_batch(unsigned long long* batch_counter) { *batch_counter += 1; }

int main() {
    const Contract call{100.0f, 105.0f, 0.03f, 0.25f, 1.0f};
    const int paths = 1 << 20;
    cudaStream_t stream = 0;  // everything runs on the default stream

    float* d_acc;  // [sum, sum of squares]
    unsigned long long* d_counter;
    float* h_acc;
    CUDA_CHECK(cudaMalloc(&d_acc, 2 * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_counter, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMallocHost(&h_acc, 2 * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_counter, 0, sizeof(unsigned long long)));

    cudaGraph_t graph;
    cudaGraphExec_t batch_exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));  // EXPECT: uncapturable_call
    CUDA_CHECK(cudaMemsetAsync(d_acc, 0, 2 * sizeof(float), stream));
    simulate_paths<<<(paths + 255) / 256, 256, 0, stream>>>(call, d_counter, paths, d_acc, d_acc + 1);
    CUDA_CHECK(cudaGetLastError());
    next_batch<<<1, 1, 0, stream>>>(d_counter);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_acc, d_acc, 2 * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&batch_exec, graph, 0));

    double sum = 0.0, sum_sq = 0.0;
    long long n = 0;
    double price = 0.0, stderr_est = 1.0;
    while (stderr_est > 0.005 && n < (1ll << 30)) {
        CUDA_CHECK(cudaGraphLaunch(batch_exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        sum += h_acc[0];
        sum_sq += h_acc[1];
        n += paths;
        price = sum / n;
        stderr_est = std::sqrt((sum_sq / n - price * price) / n);
    }
    std::printf("call price %.4f +- %.4f (%lld paths)\n", price, stderr_est, n);

    CUDA_CHECK(cudaGraphExecDestroy(batch_exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_acc));
    CUDA_CHECK(cudaFree(d_counter));
    CUDA_CHECK(cudaFree(d_acc));
    return 0;
}

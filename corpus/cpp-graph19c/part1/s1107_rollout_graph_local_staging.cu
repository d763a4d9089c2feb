// case: a policy-search loop for a batch of pendulum environments replays one captured
//       rollout (upload of start states, `horizon` policy + physics steps, returns copied
//       back); the helper that captures it uploads the start states from a pinned buffer
//       that is its own local RAII object, freed when the helper returns the graph, and
//       every replay copies from it again
// expect: graph_uses_freed_memory=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                           \
    do {                                                                           \
        const cudaError_t rc_ = (expr);                                            \
        if (rc_ != cudaSuccess) {                                                  \
            std::fprintf(stderr, "[rollout] %s failed at %s:%d: %s\n", #expr,     \
                         __FILE__, __LINE__, cudaGetErrorString(rc_));             \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

// Page-locked host array, released with its owner.
template <typename T>
class PinnedArray {
public:
    explicit PinnedArray(size_t count) : count_(count) {
        CUDA_CHECK(cudaMallocHost(&data_, count_ * sizeof(T)));
    }
    ~PinnedArray() { CUDA_CHECK(cudaFreeHost(data_)); }
    PinnedArray(const PinnedArray&) = delete;
    PinnedArray& operator=(const PinnedArray&) = delete;

    T* data() { return data_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }
    T& operator[](size_t i) { return data_[i]; }

private:
    T* data_ = nullptr;
    size_t count_;
};

constexpr int kParams = 4;          // linear policy: torque = tanh(w . [cos, sin, omega, 1]) * 2
constexpr float kMaxTorque = 2.0f;
constexpr float kDt = 0.05f;

struct EnvBatch {
    int num_envs = 0;
    float2* d_state = nullptr;      // (theta, omega) per environment
    float* d_torque = nullptr;
    float* d_returns = nullptr;
    float* d_params = nullptr;      // policy parameters, shared by the batch
};

__global__ void policy_act(const float2* __restrict__ state, const float* __restrict__ w,
                           float* __restrict__ torque, int n) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n) return;
    const float2 s = state[e];
    const float a = w[0] * cosf(s.x) + w[1] * sinf(s.x) + w[2] * s.y + w[3];
    torque[e] = kMaxTorque * tanhf(a);
}

__global__ void pendulum_step(float2* __restrict__ state, const float* __restrict__ torque,
                              float* __restrict__ returns, int n) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n) return;
    float2 s = state[e];
    const float u = torque[e];
    const float angle = atan2f(sinf(s.x), cosf(s.x));
    returns[e] -= angle * angle + 0.1f * s.y * s.y + 0.001f * u * u;
    s.y += (3.0f * 9.81f / 2.0f * sinf(s.x) + 3.0f * u) * kDt;
    s.y = fminf(fmaxf(s.y, -8.0f), 8.0f);
    s.x += s.y * kDt;
    state[e] = s;
}

// Captures one rollout of `horizon` steps from freshly sampled start states.
cudaGraphExec_t capture_rollout(EnvBatch& batch, cudaStream_t stream, int horizon,
                                float* h_returns, std::mt19937& rng) {
    PinnedArray<float2> starts(static_cast<size_t>(batch.num_envs));
    std::uniform_real_distribution<float> angle(-3.14159265f, 3.14159265f);
    std::uniform_real_distribution<float> spin(-1.0f, 1.0f);
    for (size_t e = 0; e < starts.size(); ++e) starts[e] = make_float2(angle(rng), spin(rng));

    const int threads = 128;
    const int blocks = (batch.num_envs + threads - 1) / threads;
    const size_t ret_bytes = static_cast<size_t>(batch.num_envs) * sizeof(float);

    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(batch.d_state, starts.data(), starts.bytes(),
                               cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(batch.d_returns, 0, ret_bytes, stream));
    for (int t = 0; t < horizon; ++t) {
        policy_act<<<blocks, threads, 0, stream>>>(batch.d_state, batch.d_params, batch.d_torque, batch.num_envs);
        pendulum_step<<<blocks, threads, 0, stream>>>(batch.d_state, batch.d_torque, batch.d_returns, batch.num_envs);
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_returns, batch.d_returns, ret_bytes, cudaMemcpyDeviceToHost,
                               stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    return exec;
}

int main() {
    const int num_envs = 8192;
    const int horizon = 200;
    const int iterations = 50;
    std::mt19937 rng(7);

    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    EnvBatch batch;
    batch.num_envs = num_envs;
    CUDA_CHECK(cudaMalloc(&batch.d_state, num_envs * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&batch.d_torque, num_envs * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&batch.d_returns, num_envs * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&batch.d_params, kParams * sizeof(float)));

    float* h_params = nullptr;
    float* h_returns = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_params, kParams * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_returns, num_envs * sizeof(float)));
    float best[kParams] = {-1.0f, 0.0f, -0.3f, 0.0f};
    for (int k = 0; k < kParams; ++k) h_params[k] = best[k];

    cudaGraphExec_t rollout = capture_rollout(batch, stream, horizon, h_returns, rng);

    // Random-search hill climbing on the policy parameters.
    std::normal_distribution<float> step(0.0f, 0.1f);
    float best_return = -1e30f;
    for (int it = 0; it < iterations; ++it) {
        CUDA_CHECK(cudaMemcpyAsync(batch.d_params, h_params, kParams * sizeof(float),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaGraphLaunch(rollout, stream));  // EXPECT: graph_uses_freed_memory
        CUDA_CHECK(cudaStreamSynchronize(stream));

        double total = 0.0;
        for (int e = 0; e < num_envs; ++e) total += h_returns[e];
        const float mean = static_cast<float>(total / num_envs);
        if (mean > best_return) {
            best_return = mean;
            for (int k = 0; k < kParams; ++k) best[k] = h_params[k];
        }
        for (int k = 0; k < kParams; ++k) h_params[k] = best[k] + step(rng);
        if (it % 10 == 0) std::printf("iteration %2d: mean return %.2f (best %.2f)\n", it, mean, best_return);
    }

    CUDA_CHECK(cudaGraphExecDestroy(rollout));
    CUDA_CHECK(cudaFree(batch.d_state));
    CUDA_CHECK(cudaFree(batch.d_torque));
    CUDA_CHECK(cudaFree(batch.d_returns));
    CUDA_CHECK(cudaFree(batch.d_params));
    CUDA_CHECK(cudaFreeHost(h_params));
    CUDA_CHECK(cudaFreeHost(h_returns));
    CUDA_CHECK(cudaStreamDestroy(stream));
    std::printf("best policy: %.3f %.3f %.3f %.3f\n", best[0], best[1], best[2], best[3]);
    return 0;
}

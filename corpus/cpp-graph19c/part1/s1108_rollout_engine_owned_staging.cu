// case: the pendulum policy search of s1107 with the rollout graph and its pinned start
//       states owned by one engine object: the start states are a member declared before
//       the graph, resampled between replays after the stream was waited for, and the
//       destructor drops the graph before the members (and so the pinned buffer) go
// expect: none
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

// One environment batch with its captured rollout. Each replay uploads the current start
// states, runs `horizon` steps and copies the returns back.
class RolloutEngine {
public:
    RolloutEngine(int num_envs, int horizon)
        : num_envs_(num_envs), horizon_(horizon),
          starts_(static_cast<size_t>(num_envs)),
          returns_(static_cast<size_t>(num_envs)),
          params_(kParams) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_state_, num_envs_ * sizeof(float2)));
        CUDA_CHECK(cudaMalloc(&d_torque_, num_envs_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_returns_, num_envs_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_params_, kParams * sizeof(float)));
        capture();
    }

    ~RolloutEngine() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        CUDA_CHECK(cudaGraphExecDestroy(exec_));
        CUDA_CHECK(cudaFree(d_state_));
        CUDA_CHECK(cudaFree(d_torque_));
        CUDA_CHECK(cudaFree(d_returns_));
        CUDA_CHECK(cudaFree(d_params_));
        CUDA_CHECK(cudaStreamDestroy(stream_));
        // starts_, returns_ and params_ are released after this body, graph already gone.
    }

    RolloutEngine(const RolloutEngine&) = delete;
    RolloutEngine& operator=(const RolloutEngine&) = delete;

    // Mean return of the policy `w` from freshly sampled start states.
    float evaluate(const float* w, std::mt19937& rng) {
        std::uniform_real_distribution<float> angle(-3.14159265f, 3.14159265f);
        std::uniform_real_distribution<float> spin(-1.0f, 1.0f);
        for (size_t e = 0; e < starts_.size(); ++e) starts_[e] = make_float2(angle(rng), spin(rng));
        for (int k = 0; k < kParams; ++k) params_[k] = w[k];

        CUDA_CHECK(cudaMemcpyAsync(d_params_, params_.data(), params_.bytes(),
                                   cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));

        double total = 0.0;
        for (size_t e = 0; e < returns_.size(); ++e) total += returns_[e];
        return static_cast<float>(total / num_envs_);
    }

private:
    void capture() {
        const int threads = 128;
        const int blocks = (num_envs_ + threads - 1) / threads;
        cudaGraph_t graph = nullptr;
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        CUDA_CHECK(cudaMemcpyAsync(d_state_, starts_.data(), starts_.bytes(),
                                   cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemsetAsync(d_returns_, 0, returns_.bytes(), stream_));
        for (int t = 0; t < horizon_; ++t) {
            policy_act<<<blocks, threads, 0, stream_>>>(d_state_, d_params_, d_torque_, num_envs_);
            pendulum_step<<<blocks, threads, 0, stream_>>>(d_state_, d_torque_, d_returns_, num_envs_);
        }
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(returns_.data(), d_returns_, returns_.bytes(),
                                   cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    int num_envs_;
    int horizon_;
    PinnedArray<float2> starts_;   // read by the graph's upload at every replay
    PinnedArray<float> returns_;   // written by the graph's download at every replay
    PinnedArray<float> params_;
    cudaStream_t stream_ = nullptr;
    float2* d_state_ = nullptr;
    float* d_torque_ = nullptr;
    float* d_returns_ = nullptr;
    float* d_params_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
};

int main() {
    const int iterations = 50;
    std::mt19937 rng(7);
    std::normal_distribution<float> step(0.0f, 0.1f);

    float best[kParams] = {-1.0f, 0.0f, -0.3f, 0.0f};
    float trial[kParams] = {-1.0f, 0.0f, -0.3f, 0.0f};
    float best_return = -1e30f;
    {
        RolloutEngine engine(8192, 200);
        for (int it = 0; it < iterations; ++it) {
            const float mean = engine.evaluate(trial, rng);
            if (mean > best_return) {
                best_return = mean;
                for (int k = 0; k < kParams; ++k) best[k] = trial[k];
            }
            for (int k = 0; k < kParams; ++k) trial[k] = best[k] + step(rng);
            if (it % 10 == 0) std::printf("iteration %2d: mean return %.2f (best %.2f)\n", it, mean, best_return);
        }
    }
    std::printf("best policy: %.3f %.3f %.3f %.3f\n", best[0], best[1], best[2], best[3]);
    return 0;
}

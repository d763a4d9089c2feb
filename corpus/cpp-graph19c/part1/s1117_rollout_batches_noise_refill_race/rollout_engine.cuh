#pragma once
#include <cstddef>
#include <random>
#include <vector>
#include "cartpole_kernels.cuh"
#include "cuda_check.h"

// One batch of environments with its own stream and its own captured rollout.
struct EnvBatch {
    int num_envs = 0;
    cudaStream_t stream = nullptr;
    cudaGraphExec_t exec = nullptr;
    float4* d_state = nullptr;
    int* d_alive = nullptr;
    float* d_returns = nullptr;
    float* d_noise = nullptr;
    float* d_params = nullptr;
    unsigned int* d_episode = nullptr;
    float* h_noise = nullptr;    // pinned, horizon x num_envs; uploaded by every replay
    float* h_returns = nullptr;  // pinned, num_envs; downloaded by every replay
};

// Evaluates a linear policy on several environment batches at once: one graph per batch
// (upload params and noise, reset, `horizon` steps, download returns), all batches
// replayed concurrently on their own streams.
class RolloutEngine {
public:
    RolloutEngine(const std::vector<int>& batch_sizes, int horizon, float noise_std, unsigned seed)
        : horizon_(horizon), rng_(seed), gauss_(0.0f, noise_std) {
        CUDA_CHECK(cudaMallocHost(&h_params_, kPolicyParams * sizeof(float)));
        for (int k = 0; k < kPolicyParams; ++k) h_params_[k] = 0.0f;
        batches_.resize(batch_sizes.size());
        for (size_t i = 0; i < batch_sizes.size(); ++i) {
            EnvBatch& b = batches_[i];
            b.num_envs = batch_sizes[i];
            total_envs_ += b.num_envs;
            const size_t noise_count = static_cast<size_t>(horizon_) * b.num_envs;
            CUDA_CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
            CUDA_CHECK(cudaMalloc(&b.d_state, b.num_envs * sizeof(float4)));
            CUDA_CHECK(cudaMalloc(&b.d_alive, b.num_envs * sizeof(int)));
            CUDA_CHECK(cudaMalloc(&b.d_returns, b.num_envs * sizeof(float)));
            CUDA_CHECK(cudaMalloc(&b.d_noise, noise_count * sizeof(float)));
            CUDA_CHECK(cudaMalloc(&b.d_params, kPolicyParams * sizeof(float)));
            CUDA_CHECK(cudaMalloc(&b.d_episode, sizeof(unsigned int)));
            CUDA_CHECK(cudaMallocHost(&b.h_noise, noise_count * sizeof(float)));
            CUDA_CHECK(cudaMallocHost(&b.h_returns, b.num_envs * sizeof(float)));
            CUDA_CHECK(cudaMemsetAsync(b.d_episode, 0, sizeof(unsigned int), b.stream));
            CUDA_CHECK(cudaStreamSynchronize(b.stream));
            for (size_t j = 0; j < noise_count; ++j) b.h_noise[j] = gauss_(rng_);
            capture(b);
        }
    }

    ~RolloutEngine() {
        for (EnvBatch& b : batches_) {
            CUDA_CHECK(cudaStreamSynchronize(b.stream));
            CUDA_CHECK(cudaGraphExecDestroy(b.exec));
            CUDA_CHECK(cudaFree(b.d_state));
            CUDA_CHECK(cudaFree(b.d_alive));
            CUDA_CHECK(cudaFree(b.d_returns));
            CUDA_CHECK(cudaFree(b.d_noise));
            CUDA_CHECK(cudaFree(b.d_params));
            CUDA_CHECK(cudaFree(b.d_episode));
            CUDA_CHECK(cudaFreeHost(b.h_noise));
            CUDA_CHECK(cudaFreeHost(b.h_returns));
            CUDA_CHECK(cudaStreamDestroy(b.stream));
        }
        CUDA_CHECK(cudaFreeHost(h_params_));
    }

    RolloutEngine(const RolloutEngine&) = delete;
    RolloutEngine& operator=(const RolloutEngine&) = delete;

    // Mean undiscounted return of the policy over every environment of every batch.
    float evaluate(const float* params) {
        for (int k = 0; k < kPolicyParams; ++k) h_params_[k] = params[k];
        for (EnvBatch& b : batches_) CUDA_CHECK(cudaGraphLaunch(b.exec, b.stream));

        // Draw the next evaluation's exploration noise while the batches roll out.
        for (EnvBatch& b : batches_) {
            const size_t noise_count = static_cast<size_t>(horizon_) * b.num_envs;
            for (size_t j = 0; j < noise_count; ++j) b.h_noise[j] = gauss_(rng_);  // EXPECT: missing_sync
        }

        double total = 0.0;
        for (EnvBatch& b : batches_) {
            CUDA_CHECK(cudaStreamSynchronize(b.stream));
            for (int e = 0; e < b.num_envs; ++e) total += b.h_returns[e];
        }
        return static_cast<float>(total / total_envs_);
    }

private:
    void capture(EnvBatch& b) {
        const int threads = 128;
        const int blocks = (b.num_envs + threads - 1) / threads;
        const size_t noise_count = static_cast<size_t>(horizon_) * b.num_envs;
        cudaGraph_t graph = nullptr;
        CUDA_CHECK(cudaStreamBeginCapture(b.stream, cudaStreamCaptureModeGlobal));
        CUDA_CHECK(cudaMemcpyAsync(b.d_params, h_params_, kPolicyParams * sizeof(float),
                                   cudaMemcpyHostToDevice, b.stream));
        CUDA_CHECK(cudaMemcpyAsync(b.d_noise, b.h_noise, noise_count * sizeof(float),
                                   cudaMemcpyHostToDevice, b.stream));
        reset_cartpole<<<blocks, threads, 0, b.stream>>>(b.d_state, b.d_alive, b.d_returns, b.d_episode, b.num_envs);
        for (int t = 0; t < horizon_; ++t) {
            cartpole_step<<<blocks, threads, 0, b.stream>>>(b.d_state, b.d_alive, b.d_returns, b.d_params, b.d_noise + static_cast<size_t>(t) * b.num_envs, b.num_envs);
        }
        next_episode<<<1, 1, 0, b.stream>>>(b.d_episode);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(b.h_returns, b.d_returns, b.num_envs * sizeof(float),
                                   cudaMemcpyDeviceToHost, b.stream));
        CUDA_CHECK(cudaStreamEndCapture(b.stream, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&b.exec, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    int horizon_;
    int total_envs_ = 0;
    std::mt19937 rng_;
    std::normal_distribution<float> gauss_;
    float* h_params_ = nullptr;  // pinned; uploaded by every batch's replay
    std::vector<EnvBatch> batches_;
};

#pragma once
#include <cstddef>
#include <random>
#include "cartpole_kernels.cuh"
#include "cuda_check.h"

// Asynchronous policy evaluation on one environment batch. The host stages each
// evaluation's policy and exploration noise in one slot of a pinned ring; every slot has
// its own captured graph (upload params + noise from that slot, reset, `horizon` steps,
// download returns into that slot) and an event recorded after its last replay. The host
// fills slot k+1 while the graph of slot k runs, and only touches a slot again once its
// event says the replay that used it is done.
class RolloutPipeline {
public:
    static constexpr int kSlots = 3;

    RolloutPipeline(int num_envs, int horizon, float noise_std, unsigned seed)
        : num_envs_(num_envs), horizon_(horizon), rng_(seed), gauss_(0.0f, noise_std) {
        const size_t noise_count = static_cast<size_t>(horizon_) * num_envs_;
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_state_, num_envs_ * sizeof(float4)));
        CUDA_CHECK(cudaMalloc(&d_alive_, num_envs_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_returns_, num_envs_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_noise_, noise_count * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_params_, kPolicyParams * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_episode_, sizeof(unsigned int)));
        CUDA_CHECK(cudaMemsetAsync(d_episode_, 0, sizeof(unsigned int), stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (int s = 0; s < kSlots; ++s) {
            CUDA_CHECK(cudaMallocHost(&h_noise_[s], noise_count * sizeof(float)));
            CUDA_CHECK(cudaMallocHost(&h_params_[s], kPolicyParams * sizeof(float)));
            CUDA_CHECK(cudaMallocHost(&h_returns_[s], num_envs_ * sizeof(float)));
            CUDA_CHECK(cudaEventCreateWithFlags(&slot_done_[s], cudaEventDisableTiming));
            capture_slot(s);
        }
    }

    ~RolloutPipeline() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (int s = 0; s < kSlots; ++s) {
            CUDA_CHECK(cudaGraphExecDestroy(exec_[s]));
            CUDA_CHECK(cudaEventDestroy(slot_done_[s]));
            CUDA_CHECK(cudaFreeHost(h_noise_[s]));
            CUDA_CHECK(cudaFreeHost(h_params_[s]));
            CUDA_CHECK(cudaFreeHost(h_returns_[s]));
        }
        CUDA_CHECK(cudaFree(d_state_));
        CUDA_CHECK(cudaFree(d_alive_));
        CUDA_CHECK(cudaFree(d_returns_));
        CUDA_CHECK(cudaFree(d_noise_));
        CUDA_CHECK(cudaFree(d_params_));
        CUDA_CHECK(cudaFree(d_episode_));
        CUDA_CHECK(cudaStreamDestroy(stream_));
    }

    RolloutPipeline(const RolloutPipeline&) = delete;
    RolloutPipeline& operator=(const RolloutPipeline&) = delete;

    // Queues an evaluation of `params` and returns its ticket. If the slot it reuses held
    // an evaluation that has not been collected, that result is written to *old_ticket /
    // *old_mean and true is returned.
    bool submit(const float* params, long* ticket, long* old_ticket, float* old_mean) {
        const int slot = static_cast<int>(next_ticket_ % kSlots);
        CUDA_CHECK(cudaEventSynchronize(slot_done_[slot]));  // the last replay of this slot
        bool collected = false;
        if (next_ticket_ >= kSlots) {
            *old_ticket = next_ticket_ - kSlots;
            *old_mean = mean_of(h_returns_[slot]);
            collected = true;
        }
        for (int k = 0; k < kPolicyParams; ++k) h_params_[slot][k] = params[k];
        const size_t noise_count = static_cast<size_t>(horizon_) * num_envs_;
        float* noise = h_noise_[slot];
        for (size_t j = 0; j < noise_count; ++j) noise[j] = gauss_(rng_);
        CUDA_CHECK(cudaGraphLaunch(exec_[slot], stream_));
        CUDA_CHECK(cudaEventRecord(slot_done_[slot], stream_));
        *ticket = next_ticket_++;
        return collected;
    }

    // Waits for everything in flight; returns the results of the last `kSlots` tickets.
    int drain(long* tickets, float* means) {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        int count = 0;
        const long first = next_ticket_ > kSlots ? next_ticket_ - kSlots : 0;
        for (long t = first; t < next_ticket_; ++t, ++count) {
            tickets[count] = t;
            means[count] = mean_of(h_returns_[t % kSlots]);
        }
        return count;
    }

private:
    float mean_of(const float* returns) const {
        double total = 0.0;
        for (int e = 0; e < num_envs_; ++e) total += returns[e];
        return static_cast<float>(total / num_envs_);
    }

    void capture_slot(int s) {
        const int threads = 128;
        const int blocks = (num_envs_ + threads - 1) / threads;
        const size_t noise_count = static_cast<size_t>(horizon_) * num_envs_;
        cudaGraph_t graph = nullptr;
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        CUDA_CHECK(cudaMemcpyAsync(d_params_, h_params_[s], kPolicyParams * sizeof(float),
                                   cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemcpyAsync(d_noise_, h_noise_[s], noise_count * sizeof(float),
                                   cudaMemcpyHostToDevice, stream_));
        reset_cartpole<<<blocks, threads, 0, stream_>>>(d_state_, d_alive_, d_returns_, d_episode_, num_envs_);
        for (int t = 0; t < horizon_; ++t) {
            cartpole_step<<<blocks, threads, 0, stream_>>>(d_state_, d_alive_, d_returns_, d_params_, d_noise_ + static_cast<size_t>(t) * num_envs_, num_envs_);
        }
        next_episode<<<1, 1, 0, stream_>>>(d_episode_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_returns_[s], d_returns_, num_envs_ * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec_[s], graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    int num_envs_;
    int horizon_;
    long next_ticket_ = 0;
    std::mt19937 rng_;
    std::normal_distribution<float> gauss_;
    cudaStream_t stream_ = nullptr;
    cudaGraphExec_t exec_[kSlots] = {};
    cudaEvent_t slot_done_[kSlots] = {};
    float* h_noise_[kSlots] = {};
    float* h_params_[kSlots] = {};
    float* h_returns_[kSlots] = {};
    float4* d_state_ = nullptr;
    int* d_alive_ = nullptr;
    float* d_returns_ = nullptr;
    float* d_noise_ = nullptr;
    float* d_params_ = nullptr;
    unsigned int* d_episode_ = nullptr;
};

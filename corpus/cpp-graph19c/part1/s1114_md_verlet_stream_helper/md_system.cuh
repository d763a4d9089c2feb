#pragma once
#include <cstdio>
#include "cuda_check.h"
#include "md_kernels.cuh"

// Velocity-Verlet integrator whose block of `steps_per_graph` steps is captured once and
// replayed; energies are reduced and copied back at the end of each block.
class MdSystem {
public:
    MdSystem(int n, float box, float dt, int steps_per_graph)
        : n_(n), box_(box), dt_(dt), steps_per_graph_(steps_per_graph) {
        // Created without flags (blocking); every helper is given this stream explicitly.
        CUDA_CHECK(cudaStreamCreate(&stream_));
        CUDA_CHECK(cudaMalloc(&d_pos_, n_ * sizeof(float4)));
        CUDA_CHECK(cudaMalloc(&d_vel_, n_ * sizeof(float4)));
        CUDA_CHECK(cudaMalloc(&d_force_, n_ * sizeof(float4)));
        CUDA_CHECK(cudaMalloc(&d_energy_, 2 * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_energy_, 2 * sizeof(float)));
    }

    ~MdSystem() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (exec_ != nullptr) CUDA_CHECK(cudaGraphExecDestroy(exec_));
        if (graph_ != nullptr) CUDA_CHECK(cudaGraphDestroy(graph_));
        CUDA_CHECK(cudaFree(d_pos_));
        CUDA_CHECK(cudaFree(d_vel_));
        CUDA_CHECK(cudaFree(d_force_));
        CUDA_CHECK(cudaFree(d_energy_));
        CUDA_CHECK(cudaFreeHost(h_energy_));
        CUDA_CHECK(cudaStreamDestroy(stream_));
    }

    MdSystem(const MdSystem&) = delete;
    MdSystem& operator=(const MdSystem&) = delete;

    // h_pos, h_vel: pinned, n float4 each. Computes the initial forces too.
    void load(const float4* h_pos, const float4* h_vel) {
        CUDA_CHECK(cudaMemcpyAsync(d_pos_, h_pos, n_ * sizeof(float4), cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemcpyAsync(d_vel_, h_vel, n_ * sizeof(float4), cudaMemcpyHostToDevice, stream_));
        compute_forces();
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    void capture() {
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        for (int s = 0; s < steps_per_graph_; ++s) {
            half_kick<<<blocks(), kThreads, 0, stream_>>>(d_vel_, d_force_, n_, 0.5f * dt_);
            drift<<<blocks(), kThreads, 0, stream_>>>(d_pos_, d_vel_, n_, dt_, box_);
            CUDA_CHECK(cudaGetLastError());
            compute_forces();
            half_kick<<<blocks(), kThreads, 0, stream_>>>(d_vel_, d_force_, n_, 0.5f * dt_);
            CUDA_CHECK(cudaGetLastError());
        }
        CUDA_CHECK(cudaMemsetAsync(d_energy_, 0, 2 * sizeof(float), stream_));
        energies<<<blocks(), kThreads, 0, stream_>>>(d_vel_, d_force_, n_, d_energy_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_energy_, d_energy_, 2 * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }

    // Runs one block of steps; returns kinetic + potential energy at its end.
    float run_block(float* kinetic) {
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        *kinetic = h_energy_[0];
        return h_energy_[0] + h_energy_[1];
    }

    // h_pos: pinned, n float4.
    void save(float4* h_pos) {
        CUDA_CHECK(cudaMemcpyAsync(h_pos, d_pos_, n_ * sizeof(float4), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    static constexpr int kThreads = 128;
    int blocks() const { return (n_ + kThreads - 1) / kThreads; }

    void compute_forces() {
        zero_forces(d_force_, n_, stream_);
        lj_forces<<<blocks(), kThreads, 0, stream_>>>(d_pos_, d_force_, n_, box_, 2.5f * 2.5f);
        tether_forces<<<blocks(), kThreads, 0, stream_>>>(d_pos_, d_force_, n_, 0.5f * box_, 0.05f);
        CUDA_CHECK(cudaGetLastError());
    }

    int n_;
    float box_, dt_;
    int steps_per_graph_;
    cudaStream_t stream_ = nullptr;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    float4* d_pos_ = nullptr;
    float4* d_vel_ = nullptr;
    float4* d_force_ = nullptr;
    float* d_energy_ = nullptr;
    float* h_energy_ = nullptr;
};

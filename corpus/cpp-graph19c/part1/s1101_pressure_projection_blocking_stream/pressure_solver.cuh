#pragma once
#include <cmath>
#include <cstddef>
#include "cuda_check.h"
#include "poisson_kernels.cuh"

// Projection step of a 2-D incompressible solver. The whole step (body force, divergence,
// `sweeps` red-black Gauss-Seidel sweeps with wall conditions, residual, gradient
// subtraction) is captured once into a CUDA graph and replayed every time step.
class PressureSolver {
public:
    PressureSolver(int nx, int ny, float dx, float dt, int sweeps)
        : nx_(nx), ny_(ny), dx_(dx), dt_(dt), sweeps_(sweeps) {
        // One stream for everything the solver does, created blocking so that it stays
        // ordered with the legacy default stream the older output routines write on.
        CUDA_CHECK(cudaStreamCreate(&stream_));
        const size_t bytes = cells() * sizeof(float);
        CUDA_CHECK(cudaMalloc(&d_u_, bytes));
        CUDA_CHECK(cudaMalloc(&d_v_, bytes));
        CUDA_CHECK(cudaMalloc(&d_p_, bytes));
        CUDA_CHECK(cudaMalloc(&d_rhs_, bytes));
        CUDA_CHECK(cudaMalloc(&d_res2_, sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_stats_, sizeof(SolveStats)));
        CUDA_CHECK(cudaMallocHost(&h_res2_, sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_stats_, sizeof(SolveStats)));
        CUDA_CHECK(cudaMemsetAsync(d_p_, 0, bytes, stream_));  // zero initial guess
    }

    ~PressureSolver() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (exec_ != nullptr) CUDA_CHECK(cudaGraphExecDestroy(exec_));
        if (graph_ != nullptr) CUDA_CHECK(cudaGraphDestroy(graph_));
        CUDA_CHECK(cudaFree(d_u_));
        CUDA_CHECK(cudaFree(d_v_));
        CUDA_CHECK(cudaFree(d_p_));
        CUDA_CHECK(cudaFree(d_rhs_));
        CUDA_CHECK(cudaFree(d_res2_));
        CUDA_CHECK(cudaFree(d_stats_));
        CUDA_CHECK(cudaFreeHost(h_res2_));
        CUDA_CHECK(cudaFreeHost(h_stats_));
        CUDA_CHECK(cudaStreamDestroy(stream_));
    }

    PressureSolver(const PressureSolver&) = delete;
    PressureSolver& operator=(const PressureSolver&) = delete;

    size_t cells() const { return static_cast<size_t>(nx_) * static_cast<size_t>(ny_); }

    // h_u, h_v: pinned host arrays of cells() floats.
    void upload_velocity(const float* h_u, const float* h_v) {
        const size_t bytes = cells() * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(d_u_, h_u, bytes, cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemcpyAsync(d_v_, h_v, bytes, cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    void capture_projection() {
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        reset_statistics();
        record_projection();
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
        // Setup work must be finished before the first replay.
        CUDA_CHECK(cudaDeviceSynchronize());
    }

    // One time step; returns the RMS residual of the pressure solve.
    float project() {
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
        CUDA_CHECK(cudaMemcpyAsync(h_res2_, d_res2_, sizeof(float), cudaMemcpyDeviceToHost,
                                   stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        const float interior = static_cast<float>((nx_ - 2) * (ny_ - 2));
        return std::sqrt(*h_res2_ / interior);
    }

    SolveStats statistics() {
        CUDA_CHECK(cudaMemcpyAsync(h_stats_, d_stats_, sizeof(SolveStats),
                                   cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return *h_stats_;
    }

    // Pinned host arrays of cells() floats.
    void download(float* h_u, float* h_v, float* h_p) {
        const size_t bytes = cells() * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(h_u, d_u_, bytes, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaMemcpyAsync(h_v, d_v_, bytes, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaMemcpyAsync(h_p, d_p_, bytes, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    // The counters start from zero once, before the first solve; the graph only adds to them.
    void reset_statistics() {
        CUDA_CHECK(cudaMemset(d_stats_, 0, sizeof(SolveStats)));  // EXPECT: uncapturable_call
    }

    void record_projection() {
        const dim3 block(kTile, kTile);
        const dim3 grid((nx_ + kTile - 1) / kTile, (ny_ + kTile - 1) / kTile);
        const int edge = nx_ > ny_ ? nx_ : ny_;
        const float dx2 = dx_ * dx_;

        body_force<<<grid, block, 0, stream_>>>(d_v_, nx_, ny_, dt_ * 9.81f);
        CUDA_CHECK(cudaGetLastError());
        divergence_rhs<<<grid, block, 0, stream_>>>(d_u_, d_v_, d_rhs_, nx_, ny_, 0.5f / dx_, 1.0f / dt_);
        CUDA_CHECK(cudaGetLastError());
        for (int sweep = 0; sweep < sweeps_; ++sweep) {
            rbgs_sweep<<<grid, block, 0, stream_>>>(d_p_, d_rhs_, nx_, ny_, dx2, 0);
            rbgs_sweep<<<grid, block, 0, stream_>>>(d_p_, d_rhs_, nx_, ny_, dx2, 1);
            neumann_walls<<<(edge + 255) / 256, 256, 0, stream_>>>(d_p_, nx_, ny_);
            CUDA_CHECK(cudaGetLastError());
        }
        CUDA_CHECK(cudaMemsetAsync(d_res2_, 0, sizeof(float), stream_));
        residual_l2<<<grid, block, 0, stream_>>>(d_p_, d_rhs_, nx_, ny_, 1.0f / dx2, d_res2_);
        update_stats<<<1, 1, 0, stream_>>>(d_res2_, d_stats_, sweeps_);
        subtract_gradient<<<grid, block, 0, stream_>>>(d_u_, d_v_, d_p_, nx_, ny_, dt_ * 0.5f / dx_);
        CUDA_CHECK(cudaGetLastError());
    }

    int nx_, ny_;
    float dx_, dt_;
    int sweeps_;
    cudaStream_t stream_ = nullptr;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    float* d_u_ = nullptr;
    float* d_v_ = nullptr;
    float* d_p_ = nullptr;
    float* d_rhs_ = nullptr;
    float* d_res2_ = nullptr;
    SolveStats* d_stats_ = nullptr;
    float* h_res2_ = nullptr;
    SolveStats* h_stats_ = nullptr;
};

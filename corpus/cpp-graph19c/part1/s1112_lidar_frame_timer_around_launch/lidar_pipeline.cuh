#pragma once
#include <cstddef>
#include "cuda_check.h"
#include "lidar_kernels.cuh"
#include "stage_timer.h"

// Per-frame preprocessing of a spinning lidar: upload, transform + gate, range histogram,
// download. Frames are processed by replaying a graph captured from the eager path.
class LidarPipeline {
public:
    LidarPipeline(int max_points, const Extrinsics& extrinsics)
        : max_points_(max_points), extrinsics_(extrinsics) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(&h_points_, points_bytes()));
        CUDA_CHECK(cudaMallocHost(&h_hist_, kRangeBins * sizeof(unsigned int)));
        CUDA_CHECK(cudaMalloc(&d_points_, points_bytes()));
        CUDA_CHECK(cudaMalloc(&d_vehicle_, points_bytes()));
        CUDA_CHECK(cudaMalloc(&d_keep_, max_points_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_hist_, kRangeBins * sizeof(unsigned int)));
        create_stage_events(frame_timing_, "frame");
    }

    ~LidarPipeline() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (exec_ != nullptr) CUDA_CHECK(cudaGraphExecDestroy(exec_));
        if (graph_ != nullptr) CUDA_CHECK(cudaGraphDestroy(graph_));
        destroy_stage_events(frame_timing_);
        CUDA_CHECK(cudaFree(d_points_));
        CUDA_CHECK(cudaFree(d_vehicle_));
        CUDA_CHECK(cudaFree(d_keep_));
        CUDA_CHECK(cudaFree(d_hist_));
        CUDA_CHECK(cudaFreeHost(h_points_));
        CUDA_CHECK(cudaFreeHost(h_hist_));
        CUDA_CHECK(cudaStreamDestroy(stream_));
    }

    LidarPipeline(const LidarPipeline&) = delete;
    LidarPipeline& operator=(const LidarPipeline&) = delete;

    // Pinned input of max_points() returns (x, y, z, intensity); fill it between frames.
    float4* input() { return h_points_; }
    const unsigned int* histogram() const { return h_hist_; }
    int max_points() const { return max_points_; }
    const StageStats& timing() const { return frame_timing_; }

    // First frame: run eagerly to validate the chain, then capture it for the rest. Timers
    // wrap whole frames from the outside, never work that is being captured.
    void process_first_frame() {
        {
            ScopedStageTimer timer(frame_timing_, stream_);
            enqueue_frame();
        }  // the timer waited for the eager frame
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        enqueue_frame();
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }

    // Replays the frame; the timer's destructor waits for the replay's stop event, so the
    // histogram is complete when this returns.
    void process_frame() {
        ScopedStageTimer timer(frame_timing_, stream_);
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
    }

private:
    size_t points_bytes() const { return static_cast<size_t>(max_points_) * sizeof(float4); }

    void enqueue_frame() {
        const int threads = 256;
        const int blocks = (max_points_ + threads - 1) / threads;
        CUDA_CHECK(cudaMemcpyAsync(d_points_, h_points_, points_bytes(), cudaMemcpyHostToDevice,
                                   stream_));
        CUDA_CHECK(cudaMemsetAsync(d_hist_, 0, kRangeBins * sizeof(unsigned int), stream_));
        transform_and_gate<<<blocks, threads, 0, stream_>>>(d_points_, extrinsics_, max_points_, 2.5f, -1.6f, d_vehicle_, d_keep_);
        range_histogram<<<blocks, threads, 0, stream_>>>(d_vehicle_, d_keep_, max_points_, d_hist_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_hist_, d_hist_, kRangeBins * sizeof(unsigned int),
                                   cudaMemcpyDeviceToHost, stream_));
    }

    int max_points_;
    Extrinsics extrinsics_;
    StageStats frame_timing_;
    cudaStream_t stream_ = nullptr;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    float4* h_points_ = nullptr;
    unsigned int* h_hist_ = nullptr;
    float4* d_points_ = nullptr;
    float4* d_vehicle_ = nullptr;
    int* d_keep_ = nullptr;
    unsigned int* d_hist_ = nullptr;
};

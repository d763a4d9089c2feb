#pragma once
#include <cstddef>
#include "checks.h"
#include "filter_kernels.cuh"

// Band-pass filter bank over a batch of hydrophone channels: window, batched R2C FFT,
// multiply by the band's response, batched C2R FFT, band energy per channel. One block of
// samples per ping; the whole chain, copies included, is captured once and replayed.
class FilterBank {
public:
    FilterBank(int n, int channels, int band_lo, int band_hi)
        : n_(n), channels_(channels), nfreq_(n / 2 + 1) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(&h_block_, samples() * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_energy_, channels_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_raw_, samples() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_windowed_, samples() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_filtered_, samples() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_spec_, spectra() * sizeof(cufftComplex)));
        CUDA_CHECK(cudaMalloc(&d_response_, nfreq_ * sizeof(cufftComplex)));
        CUDA_CHECK(cudaMalloc(&d_energy_, channels_ * sizeof(float)));

        // The plans use a work area we provide, shared by both directions.
        int len = n_;
        size_t fwd_bytes = 0, inv_bytes = 0;
        CUFFT_CHECK(cufftCreate(&fwd_));
        CUFFT_CHECK(cufftCreate(&inv_));
        CUFFT_CHECK(cufftSetAutoAllocation(fwd_, 0));
        CUFFT_CHECK(cufftSetAutoAllocation(inv_, 0));
        CUFFT_CHECK(cufftMakePlanMany(fwd_, 1, &len, nullptr, 1, n_, nullptr, 1, nfreq_,
                                      CUFFT_R2C, channels_, &fwd_bytes));
        CUFFT_CHECK(cufftMakePlanMany(inv_, 1, &len, nullptr, 1, nfreq_, nullptr, 1, n_,
                                      CUFFT_C2R, channels_, &inv_bytes));
        work_bytes_ = fwd_bytes > inv_bytes ? fwd_bytes : inv_bytes;

        make_bandpass<<<(nfreq_ + 255) / 256, 256, 0, stream_>>>(d_response_, nfreq_, band_lo, band_hi, 16);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    ~FilterBank() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (exec_ != nullptr) CUDA_CHECK(cudaGraphExecDestroy(exec_));
        if (graph_ != nullptr) CUDA_CHECK(cudaGraphDestroy(graph_));
        CUFFT_CHECK(cufftDestroy(fwd_));
        CUFFT_CHECK(cufftDestroy(inv_));
        if (d_work_ != nullptr) CUDA_CHECK(cudaFree(d_work_));
        CUDA_CHECK(cudaFree(d_raw_));
        CUDA_CHECK(cudaFree(d_windowed_));
        CUDA_CHECK(cudaFree(d_filtered_));
        CUDA_CHECK(cudaFree(d_spec_));
        CUDA_CHECK(cudaFree(d_response_));
        CUDA_CHECK(cudaFree(d_energy_));
        CUDA_CHECK(cudaFreeHost(h_block_));
        CUDA_CHECK(cudaFreeHost(h_energy_));
        CUDA_CHECK(cudaStreamDestroy(stream_));
    }

    FilterBank(const FilterBank&) = delete;
    FilterBank& operator=(const FilterBank&) = delete;

    size_t samples() const { return static_cast<size_t>(n_) * channels_; }
    size_t spectra() const { return static_cast<size_t>(nfreq_) * channels_; }
    int channels() const { return channels_; }
    int length() const { return n_; }

    // Pinned staging the graph uploads from at every replay; refill it between pings.
    float* input() { return h_block_; }
    const float* energy() const { return h_energy_; }

    void build_graph() {
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        enqueue_ping();
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }

    // One ping: replay and wait; energy() then holds the band energy per channel.
    void process_ping() {
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    // The work area is made on first use, once the plans know how much they need.
    void ensure_workspace() {
        if (d_work_ != nullptr) return;
        CUDA_CHECK(cudaMalloc(&d_work_, work_bytes_));  // EXPECT: uncapturable_call
        CUFFT_CHECK(cufftSetWorkArea(fwd_, d_work_));
        CUFFT_CHECK(cufftSetWorkArea(inv_, d_work_));
    }

    void enqueue_ping() {
        const int threads = 256;
        CUDA_CHECK(cudaMemcpyAsync(d_raw_, h_block_, samples() * sizeof(float),
                                   cudaMemcpyHostToDevice, stream_));
        apply_hann<<<static_cast<int>((samples() + threads - 1) / threads), threads, 0, stream_>>>(d_raw_, d_windowed_, n_, channels_);
        CUDA_CHECK(cudaGetLastError());

        ensure_workspace();
        CUFFT_CHECK(cufftSetStream(fwd_, stream_));
        CUFFT_CHECK(cufftSetStream(inv_, stream_));
        CUFFT_CHECK(cufftExecR2C(fwd_, d_windowed_, d_spec_));
        apply_response<<<static_cast<int>((spectra() + threads - 1) / threads), threads, 0, stream_>>>(d_spec_, d_response_, nfreq_, channels_);
        CUDA_CHECK(cudaGetLastError());
        CUFFT_CHECK(cufftExecC2R(inv_, d_spec_, d_filtered_));
        band_energy<<<channels_, threads, 0, stream_>>>(d_filtered_, d_energy_, n_, 1.0f / n_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_energy_, d_energy_, channels_ * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));
    }

    int n_, channels_, nfreq_;
    size_t work_bytes_ = 0;
    cudaStream_t stream_ = nullptr;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    cufftHandle fwd_ = 0;
    cufftHandle inv_ = 0;
    void* d_work_ = nullptr;
    float* h_block_ = nullptr;
    float* h_energy_ = nullptr;
    float* d_raw_ = nullptr;
    float* d_windowed_ = nullptr;
    float* d_filtered_ = nullptr;
    cufftComplex* d_spec_ = nullptr;
    cufftComplex* d_response_ = nullptr;
    float* d_energy_ = nullptr;
};

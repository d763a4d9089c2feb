#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x) do { cudaError_t err = (x); if (err != cudaSuccess) { \
    std::fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(err), __FILE__, __LINE__); std::exit(1); } } while (0)

constexpr int kSlots = 2;
constexpr int kHop = 256;
constexpr int kBinsOut = 257;
constexpr int kFramesPerChunk = 2048;
constexpr int kChunkSamples = kHop * kFramesPerChunk + 512;

// One slot of the double buffer: its own pinned staging, device memory, stream and event.
struct Slot {
    float* h_pcm = nullptr;
    float* h_mag = nullptr;
    float* d_pcm = nullptr;
    float* d_mag = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;

    void init()
    {
        CHECK_CUDA(cudaMallocHost(&h_pcm, kChunkSamples * sizeof(float)));
        CHECK_CUDA(cudaMallocHost(&h_mag, (size_t)kFramesPerChunk * kBinsOut * sizeof(float)));
        CHECK_CUDA(cudaMalloc(&d_pcm, kChunkSamples * sizeof(float)));
        CHECK_CUDA(cudaMalloc(&d_mag, (size_t)kFramesPerChunk * kBinsOut * sizeof(float)));
        CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        CHECK_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    }
    void release()
    {
        cudaEventDestroy(done);
        cudaStreamDestroy(stream);
        cudaFree(d_mag); cudaFree(d_pcm);
        cudaFreeHost(h_mag); cudaFreeHost(h_pcm);
    }
};

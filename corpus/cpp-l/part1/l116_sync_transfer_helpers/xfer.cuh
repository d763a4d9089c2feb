// Small transfer helpers shared by the tools of the project.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>

// Enqueue an upload from page-locked memory; the caller keeps `src` unchanged until `s` reaches it.
inline cudaError_t upload_async(void* dst, const void* src_pinned, size_t bytes, cudaStream_t s) {
    return cudaMemcpyAsync(dst, src_pinned, bytes, cudaMemcpyHostToDevice, s);
}

// Download and wait: when this returns cudaSuccess the host buffer holds the data.
inline cudaError_t download_blocking(void* dst_pinned, const void* src, size_t bytes, cudaStream_t s) {
    cudaError_t err = cudaMemcpyAsync(dst_pinned, src, bytes, cudaMemcpyDeviceToHost, s);
    if (err != cudaSuccess) return err;
    return cudaStreamSynchronize(s);
}

// Wait for everything queued on `s` so far, e.g. before the host rewrites an upload source.
inline cudaError_t drain(cudaStream_t s) {
    return cudaStreamSynchronize(s);
}

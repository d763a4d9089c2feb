#ifndef RECON_CUDA_HELPERS_H
#define RECON_CUDA_HELPERS_H
// Project-wide CUDA helpers for the reconstruction service.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

// Page-locked host arrays: every asynchronous transfer goes through these.
#define PINNED_NEW(ptr, count) CUDA_CHECK(cudaMallocHost((void**)&(ptr), (count) * sizeof(*(ptr))))
#define PINNED_DELETE(ptr) CUDA_CHECK(cudaFreeHost(ptr))
#define DEVICE_NEW(ptr, count) CUDA_CHECK(cudaMalloc((void**)&(ptr), (count) * sizeof(*(ptr))))
#define DEVICE_DELETE(ptr) CUDA_CHECK(cudaFree(ptr))

#define UPLOAD_ASYNC(dst, src, count, stream) \
  CUDA_CHECK(cudaMemcpyAsync((dst), (src), (count) * sizeof(*(src)), cudaMemcpyHostToDevice, (stream)))
#define DOWNLOAD_ASYNC(dst, src, count, stream) \
  CUDA_CHECK(cudaMemcpyAsync((dst), (src), (count) * sizeof(*(dst)), cudaMemcpyDeviceToHost, (stream)))
#define STREAM_SYNC(stream) CUDA_CHECK(cudaStreamSynchronize(stream))

#endif

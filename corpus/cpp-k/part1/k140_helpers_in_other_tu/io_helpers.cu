#include "io_helpers.h"

#include <cstdio>
#include <cstdlib>

static void die_on(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(EXIT_FAILURE);
  }
}

float* device_alloc(size_t count) {
  float* p = nullptr;
  die_on(cudaMalloc(&p, count * sizeof(float)), "cudaMalloc");
  return p;
}

void device_release(float* p) { die_on(cudaFree(p), "cudaFree"); }

float* pinned_alloc(size_t count) {
  float* p = nullptr;
  die_on(cudaMallocHost(&p, count * sizeof(float)), "cudaMallocHost");
  return p;
}

void pinned_release(float* p) { die_on(cudaFreeHost(p), "cudaFreeHost"); }

void upload_async(float* device, const float* host, size_t count, cudaStream_t s) {
  die_on(cudaMemcpyAsync(device, host, count * sizeof(float), cudaMemcpyHostToDevice, s),
         "upload");
}

void download_wait(float* host, const float* device, size_t count, cudaStream_t s) {
  die_on(cudaMemcpyAsync(host, device, count * sizeof(float), cudaMemcpyDeviceToHost, s),
         "download");
  die_on(cudaStreamSynchronize(s), "download sync");
}

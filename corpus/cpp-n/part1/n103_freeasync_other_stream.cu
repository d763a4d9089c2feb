// case: Stream-ordered scratch for a single-pass reduction is allocated with cudaMallocAsync on an allocator stream and handed to the work stream through an event, but is released with cudaFreeAsync on the allocator stream with no event ordering it after the reduction kernel that still uses it (the sppark/cuda-oxide "free on the wrong stream" bug).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

__device__ unsigned int g_retired = 0;

// threadFenceReduction-style: every block writes its partial sum, the last block to
// retire adds up the partials.
__global__ void sum_single_pass(const float* in, float* partials, float* out, unsigned n) {
  extern __shared__ float sh[];
  __shared__ bool is_last;
  float acc = 0.f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += in[i];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sh[0];
    __threadfence();
    unsigned ticket = atomicInc(&g_retired, gridDim.x);
    is_last = (ticket == gridDim.x - 1);
  }
  __syncthreads();
  if (is_last && threadIdx.x == 0) {
    float total = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partials[b];
    out[0] = total;
    g_retired = 0;
  }
}

int main() {
  const unsigned n = 1u << 24;
  const unsigned blocks = 512, threads = 256;

  cudaStream_t alloc_stream, work_stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&alloc_stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&work_stream, cudaStreamNonBlocking));
  cudaEvent_t scratch_ready;
  CUDA_CHECK(cudaEventCreateWithFlags(&scratch_ready, cudaEventDisableTiming));

  float *h_in, *h_sum, *d_in, *d_sum;
  CUDA_CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_sum, sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));
  for (unsigned i = 0; i < n; ++i) h_in[i] = 1.0f / float(1 + (i & 1023));

  float* d_partials = nullptr;
  CUDA_CHECK(cudaMallocAsync(&d_partials, blocks * sizeof(float), alloc_stream));
  CUDA_CHECK(cudaEventRecord(scratch_ready, alloc_stream));
  CUDA_CHECK(cudaStreamWaitEvent(work_stream, scratch_ready, 0));

  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, work_stream));
  sum_single_pass<<<blocks, threads, threads * sizeof(float), work_stream>>>(d_in, d_partials, d_sum, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaFreeAsync(d_partials, alloc_stream));  // EXPECT: missing_sync

  CUDA_CHECK(cudaMemcpyAsync(h_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost, work_stream));
  CUDA_CHECK(cudaStreamSynchronize(work_stream));
  printf("sum = %f\n", *h_sum);

  CUDA_CHECK(cudaStreamSynchronize(alloc_stream));
  CUDA_CHECK(cudaEventDestroy(scratch_ready));
  CUDA_CHECK(cudaStreamDestroy(alloc_stream));
  CUDA_CHECK(cudaStreamDestroy(work_stream));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_sum));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_sum));
  return 0;
}

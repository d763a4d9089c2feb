// case: 256-bin histogram of a byte stream whose bin counters (unsigned int) are cleared with a memset sized for doubles, twice the allocation
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NUM_BINS 256
#define DATA_SIZE (16 * 1024 * 1024)
#define BLOCK 256

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "CUDA %s (%s:%d)\n", cudaGetErrorString(e), __FILE__, \
              __LINE__);                                                    \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void histogram_smem(const unsigned char *data, unsigned int *bins, int n) {
  __shared__ unsigned int local[NUM_BINS];
  for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

int main() {
  unsigned char *h_data = (unsigned char *)malloc(DATA_SIZE);
  unsigned int h_bins[NUM_BINS];
  srand(1234);
  for (int i = 0; i < DATA_SIZE; ++i) h_data[i] = (unsigned char)(rand() & 0xff);

  unsigned char *d_data;
  unsigned int *d_bins;
  CUDA_CHECK(cudaMalloc(&d_data, DATA_SIZE));
  CUDA_CHECK(cudaMalloc(&d_bins, NUM_BINS * sizeof(unsigned int)));
  CUDA_CHECK(cudaMemcpy(d_data, h_data, DATA_SIZE, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_bins, 0, NUM_BINS * sizeof(double))); // EXPECT: copy_out_of_bounds

  int dev = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  histogram_smem<<<sms * 4, BLOCK>>>(d_data, d_bins, DATA_SIZE);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_bins, d_bins, sizeof(h_bins), cudaMemcpyDeviceToHost));

  unsigned long long total = 0;
  for (int i = 0; i < NUM_BINS; ++i) total += h_bins[i];
  printf("counted %llu of %d bytes\n", total, DATA_SIZE);

  CUDA_CHECK(cudaFree(d_data));
  CUDA_CHECK(cudaFree(d_bins));
  free(h_data);
  return total == DATA_SIZE ? 0 : 1;
}

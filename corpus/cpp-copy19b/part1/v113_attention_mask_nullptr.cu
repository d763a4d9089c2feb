// case: masked softmax over attention scores launched with the mask pointer left as nullptr for the unmasked configuration, while the kernel reads mask[] unconditionally
// expect: unallocated_pointer=1
#include <cstdio>
#include <cstdlib>
#include <cfloat>
#include <vector>
#include <cuda_runtime.h>

#define SEQ_LEN 512
#define NUM_HEADS 8
#define BLOCK 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                    \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

// one block per (head, query row)
__global__ void masked_softmax(const float *scores, const float *mask, float *probs, int len) {
  __shared__ float red[BLOCK];
  const float *row = scores + (size_t)blockIdx.x * len;
  float *out = probs + (size_t)blockIdx.x * len;
  const float *mrow = mask + (size_t)(blockIdx.x % len) * len;

  float m = -FLT_MAX;
  for (int j = threadIdx.x; j < len; j += blockDim.x) m = fmaxf(m, row[j] + mrow[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();

  float sum = 0.f;
  for (int j = threadIdx.x; j < len; j += blockDim.x) sum += __expf(row[j] + mrow[j] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  float inv = 1.f / red[0];
  for (int j = threadIdx.x; j < len; j += blockDim.x) out[j] = __expf(row[j] + mrow[j] - m) * inv;
}

int main() {
  const size_t n = (size_t)NUM_HEADS * SEQ_LEN * SEQ_LEN;
  std::vector<float> h_scores(n), h_probs(n);
  for (size_t i = 0; i < n; ++i) h_scores[i] = 0.01f * (float)(i % 97);

  float *d_scores = nullptr, *d_probs = nullptr;
  const float *d_mask = nullptr;
  CUDA_CHECK(cudaMalloc(&d_scores, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_probs, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_scores, h_scores.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  masked_softmax<<<NUM_HEADS * SEQ_LEN, BLOCK>>>(d_scores, d_mask, d_probs, SEQ_LEN); // EXPECT: unallocated_pointer
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_probs.data(), d_probs, n * sizeof(float), cudaMemcpyDeviceToHost));

  double row_sum = 0.0;
  for (int j = 0; j < SEQ_LEN; ++j) row_sum += h_probs[j];
  printf("row 0 sums to %f\n", row_sum);

  CUDA_CHECK(cudaFree(d_scores));
  CUDA_CHECK(cudaFree(d_probs));
  return 0;
}

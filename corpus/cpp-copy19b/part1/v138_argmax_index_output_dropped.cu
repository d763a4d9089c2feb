// case: per-row argmax over classifier logits whose kernel writes both the max probability and the winning class index; only the probabilities are copied back and the index buffer is freed unread
// expect: unread_kernel_output=1
#include <cstdio>
#include <cstdlib>
#include <cfloat>
#include <vector>
#include <cuda_runtime.h>

#define BATCH 4096
#define CLASSES 1000
#define BLOCK 128

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void row_argmax(const float *logits, float *max_prob, int *argmax, int classes) {
  __shared__ float sval[BLOCK];
  __shared__ int sidx[BLOCK];
  const float *row = logits + (size_t)blockIdx.x * classes;
  float best = -FLT_MAX;
  int best_i = 0;
  for (int j = threadIdx.x; j < classes; j += blockDim.x)
    if (row[j] > best) {
      best = row[j];
      best_i = j;
    }
  sval[threadIdx.x] = best;
  sidx[threadIdx.x] = best_i;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && sval[threadIdx.x + s] > sval[threadIdx.x]) {
      sval[threadIdx.x] = sval[threadIdx.x + s];
      sidx[threadIdx.x] = sidx[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    float denom = 0.f;
    for (int j = 0; j < classes; ++j) denom += __expf(row[j] - sval[0]);
    max_prob[blockIdx.x] = 1.f / denom;
    argmax[blockIdx.x] = sidx[0];
  }
}

int main() {
  std::vector<float> h_logits((size_t)BATCH * CLASSES), h_prob(BATCH);
  for (size_t i = 0; i < h_logits.size(); ++i) h_logits[i] = (float)((i * 7919) % 1000) / 250.f;

  float *d_logits, *d_prob;
  int *d_argmax;
  CUDA_CHECK(cudaMalloc(&d_logits, h_logits.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_prob, BATCH * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_argmax, BATCH * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_logits, h_logits.data(), h_logits.size() * sizeof(float), cudaMemcpyHostToDevice));

  row_argmax<<<BATCH, BLOCK>>>(d_logits, d_prob, d_argmax, CLASSES);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_prob.data(), d_prob, BATCH * sizeof(float), cudaMemcpyDeviceToHost));

  int confident = 0;
  for (float p : h_prob) confident += p > 0.5f;
  printf("%d of %d samples predicted with p > 0.5\n", confident, BATCH);

  CUDA_CHECK(cudaFree(d_logits));
  CUDA_CHECK(cudaFree(d_prob));
  CUDA_CHECK(cudaFree(d_argmax)); // EXPECT: unread_kernel_output
  return 0;
}

// case: cosine similarity of embedding pairs built with to_device/device_zeros helpers that hand their allocations to the caller; main frees the query embeddings and the output but never the key embeddings
// expect: device_memory_leak=1
#include "device_utils.cuh"
#include <cmath>

#define DIM 384
#define PAIRS 20000

__global__ void cosine_sim(const float *q, const float *k, float *sim, int dim, int pairs) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= pairs) return;
  const float *a = q + (size_t)p * dim;
  const float *b = k + (size_t)p * dim;
  float dot = 0.f, na = 0.f, nb = 0.f;
  for (int j = 0; j < dim; ++j) {
    dot += a[j] * b[j];
    na += a[j] * a[j];
    nb += b[j] * b[j];
  }
  sim[p] = dot / (sqrtf(na) * sqrtf(nb) + 1e-8f);
}

int main() {
  std::vector<float> h_q((size_t)PAIRS * DIM), h_k((size_t)PAIRS * DIM);
  for (size_t i = 0; i < h_q.size(); ++i) {
    h_q[i] = std::sin(0.001f * (float)i);
    h_k[i] = std::cos(0.0013f * (float)i);
  }

  float *d_q = to_device(h_q);
  float *d_k = to_device(h_k);
  float *d_sim = device_zeros<float>(PAIRS);

  cosine_sim<<<(PAIRS + 127) / 128, 128>>>(d_q, d_k, d_sim, DIM, PAIRS);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> sim = to_host(d_sim, PAIRS);

  int similar = 0;
  for (float s : sim) similar += s > 0.9f;
  printf("%d of %d pairs with cosine > 0.9\n", similar, PAIRS);

  CUDA_CHECK(cudaFree(d_q));
  CUDA_CHECK(cudaFree(d_sim));
  return 0;
}

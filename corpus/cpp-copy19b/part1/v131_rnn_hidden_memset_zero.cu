// case: an Elman RNN forward pass whose initial hidden state is cleared with cudaMemset before the first cell kernel reads it; every other input is uploaded
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define SEQ 64
#define IN_DIM 128
#define HID 256
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

__global__ void rnn_cell(const float *x_t, const float *h_prev, const float *W, const float *U,
                         float *h_next) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= HID) return;
  float acc = 0.f;
  for (int k = 0; k < IN_DIM; ++k) acc += W[j * IN_DIM + k] * x_t[k];
  for (int k = 0; k < HID; ++k) acc += U[j * HID + k] * h_prev[k];
  h_next[j] = tanhf(acc);
}

int main() {
  std::vector<float> h_x(SEQ * IN_DIM), h_W(HID * IN_DIM), h_U(HID * HID), h_h(HID);
  for (int i = 0; i < SEQ * IN_DIM; ++i) h_x[i] = sinf(0.05f * i);
  for (int i = 0; i < HID * IN_DIM; ++i) h_W[i] = 0.01f * ((i % 11) - 5);
  for (int i = 0; i < HID * HID; ++i) h_U[i] = 0.005f * ((i % 7) - 3);

  float *d_x, *d_W, *d_U, *d_h0, *d_h1;
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * SEQ * IN_DIM));
  CUDA_CHECK(cudaMalloc(&d_W, sizeof(float) * HID * IN_DIM));
  CUDA_CHECK(cudaMalloc(&d_U, sizeof(float) * HID * HID));
  CUDA_CHECK(cudaMalloc(&d_h0, sizeof(float) * HID));
  CUDA_CHECK(cudaMalloc(&d_h1, sizeof(float) * HID));

  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), sizeof(float) * SEQ * IN_DIM, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_W, h_W.data(), sizeof(float) * HID * IN_DIM, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_U, h_U.data(), sizeof(float) * HID * HID, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_h0, 0, sizeof(float) * HID));

  const int grid = (HID + BLOCK - 1) / BLOCK;
  for (int t = 0; t < SEQ; t += 2) {
    rnn_cell<<<grid, BLOCK>>>(d_x + t * IN_DIM, d_h0, d_W, d_U, d_h1);
    rnn_cell<<<grid, BLOCK>>>(d_x + (t + 1) * IN_DIM, d_h1, d_W, d_U, d_h0);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_h.data(), d_h0, sizeof(float) * HID, cudaMemcpyDeviceToHost));

  float norm = 0.f;
  for (float v : h_h) norm += v * v;
  printf("final hidden-state norm: %f\n", sqrtf(norm));

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_W));
  CUDA_CHECK(cudaFree(d_U));
  CUDA_CHECK(cudaFree(d_h0));
  CUDA_CHECK(cudaFree(d_h1));
  return 0;
}

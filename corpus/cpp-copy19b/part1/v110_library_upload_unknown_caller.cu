// case: a library translation unit of an MLP inference engine whose exported upload/download functions copy fixed layer sizes into and out of pointers given by callers outside the program, sizes of which are unknown
// expect: none
#include <cstdio>
#include <cuda_runtime.h>

#define HIDDEN 1024
#define INPUT_DIM 784
#define OUTPUT_DIM 10
#define MAX_BATCH 64

struct MlpWeights {
  float *w1;
  float *b1;
  float *w2;
  float *b2;
};

__global__ void dense_relu(const float *x, const float *w, const float *b, float *y, int in_dim,
                           int out_dim, int batch) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (o >= out_dim || r >= batch) return;
  float acc = b[o];
  for (int k = 0; k < in_dim; ++k) acc += x[r * in_dim + k] * w[k * out_dim + o];
  y[r * out_dim + o] = acc > 0.f ? acc : 0.f;
}

extern "C" cudaError_t mlp_upload_layer1(MlpWeights *w, const float *h_w1, const float *h_b1,
                                         cudaStream_t stream) {
  cudaError_t err = cudaMemcpyAsync(w->w1, h_w1, sizeof(float) * INPUT_DIM * HIDDEN,
                                    cudaMemcpyHostToDevice, stream);
  if (err != cudaSuccess) return err;
  return cudaMemcpyAsync(w->b1, h_b1, sizeof(float) * HIDDEN, cudaMemcpyHostToDevice, stream);
}

extern "C" cudaError_t mlp_upload_layer2(MlpWeights *w, const float *h_w2, const float *h_b2,
                                         cudaStream_t stream) {
  cudaError_t err = cudaMemcpyAsync(w->w2, h_w2, sizeof(float) * HIDDEN * OUTPUT_DIM,
                                    cudaMemcpyHostToDevice, stream);
  if (err != cudaSuccess) return err;
  return cudaMemcpyAsync(w->b2, h_b2, sizeof(float) * OUTPUT_DIM, cudaMemcpyHostToDevice, stream);
}

extern "C" cudaError_t mlp_forward(const MlpWeights *w, const float *d_x, float *d_hidden,
                                   float *d_logits, int batch, cudaStream_t stream) {
  dim3 block(128);
  dim3 grid1((HIDDEN + 127) / 128, batch);
  dense_relu<<<grid1, block, 0, stream>>>(d_x, w->w1, w->b1, d_hidden, INPUT_DIM, HIDDEN, batch);
  dim3 grid2((OUTPUT_DIM + 127) / 128, batch);
  dense_relu<<<grid2, block, 0, stream>>>(d_hidden, w->w2, w->b2, d_logits, HIDDEN, OUTPUT_DIM,
                                          batch);
  return cudaGetLastError();
}

extern "C" cudaError_t mlp_download_logits(float *h_logits, const float *d_logits,
                                           cudaStream_t stream) {
  cudaError_t err = cudaMemcpyAsync(h_logits, d_logits, sizeof(float) * MAX_BATCH * OUTPUT_DIM,
                                    cudaMemcpyDeviceToHost, stream);
  if (err != cudaSuccess) return err;
  return cudaStreamSynchronize(stream);
}

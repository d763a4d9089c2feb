// case: a C-style batched dot-product routine that checks every CUDA call and jumps to a single cleanup label freeing all three buffers, so every early exit releases what was allocated
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define VEC_LEN 1024
#define NUM_VECS 4096
#define THREADS 256

__global__ void batched_dot(const float *x, const float *y, float *out, int len, int count) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < count) {
    float acc = 0.0f;
    for (int i = 0; i < len; i++) acc += x[v * len + i] * y[v * len + i];
    out[v] = acc;
  }
}

static int run_batched_dot(const float *h_x, const float *h_y, float *h_out) {
  int status = -1;
  float *d_x = NULL, *d_y = NULL, *d_out = NULL;
  const size_t in_bytes = (size_t)VEC_LEN * NUM_VECS * sizeof(float);

  if (cudaMalloc((void **)&d_x, in_bytes) != cudaSuccess) goto cleanup;
  if (cudaMalloc((void **)&d_y, in_bytes) != cudaSuccess) goto cleanup;
  if (cudaMalloc((void **)&d_out, NUM_VECS * sizeof(float)) != cudaSuccess) goto cleanup;

  if (cudaMemcpy(d_x, h_x, in_bytes, cudaMemcpyHostToDevice) != cudaSuccess) goto cleanup;
  if (cudaMemcpy(d_y, h_y, in_bytes, cudaMemcpyHostToDevice) != cudaSuccess) goto cleanup;

  batched_dot<<<(NUM_VECS + THREADS - 1) / THREADS, THREADS>>>(d_x, d_y, d_out, VEC_LEN, NUM_VECS);
  if (cudaGetLastError() != cudaSuccess) goto cleanup;

  if (cudaMemcpy(h_out, d_out, NUM_VECS * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
    goto cleanup;
  status = 0;

cleanup:
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_out);
  return status;
}

int main(void) {
  float *h_x = (float *)malloc((size_t)VEC_LEN * NUM_VECS * sizeof(float));
  float *h_y = (float *)malloc((size_t)VEC_LEN * NUM_VECS * sizeof(float));
  float *h_out = (float *)malloc(NUM_VECS * sizeof(float));
  for (int i = 0; i < VEC_LEN * NUM_VECS; i++) {
    h_x[i] = 1.0f;
    h_y[i] = (float)(i % VEC_LEN) / VEC_LEN;
  }

  int rc = run_batched_dot(h_x, h_y, h_out);
  if (rc == 0) printf("dot[0] = %f\n", h_out[0]);
  else fprintf(stderr, "batched dot failed\n");

  free(h_x);
  free(h_y);
  free(h_out);
  return rc == 0 ? 0 : 1;
}

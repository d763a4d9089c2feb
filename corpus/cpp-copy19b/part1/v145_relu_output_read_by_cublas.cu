// case: a two-layer MLP where a bias+ReLU kernel writes the hidden activations that cublasSgemm then reads for the second layer; the library call is the read, and the final output is copied back
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define BATCH 256
#define IN_F 512
#define HID 1024
#define OUT_F 128

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

#define CUBLAS_CHECK(call)                                                 \
  do {                                                                     \
    cublasStatus_t s_ = (call);                                            \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                     \
      fprintf(stderr, "cuBLAS error %d at %s:%d\n", (int)s_, __FILE__,     \
              __LINE__);                                                   \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

// column-major [HID x BATCH]
__global__ void bias_relu(const float *pre, const float *bias, float *act, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) {
    float v = pre[i] + bias[i % rows];
    act[i] = v > 0.f ? v : 0.f;
  }
}

int main() {
  std::vector<float> hX(IN_F * BATCH), hW1(HID * IN_F), hb1(HID), hW2(OUT_F * HID), hY(OUT_F * BATCH);
  for (size_t i = 0; i < hX.size(); ++i) hX[i] = 0.01f * (float)(i % 100);
  for (size_t i = 0; i < hW1.size(); ++i) hW1[i] = 0.001f * (float)((int)(i % 21) - 10);
  for (size_t i = 0; i < hb1.size(); ++i) hb1[i] = 0.05f;
  for (size_t i = 0; i < hW2.size(); ++i) hW2[i] = 0.002f * (float)((int)(i % 11) - 5);

  float *dX, *dW1, *db1, *dW2, *dPre, *dAct, *dY;
  CUDA_CHECK(cudaMalloc(&dX, hX.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dW1, hW1.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db1, hb1.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dW2, hW2.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dPre, HID * BATCH * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dAct, HID * BATCH * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dY, OUT_F * BATCH * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dX, hX.data(), hX.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dW1, hW1.data(), hW1.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db1, hb1.data(), hb1.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dW2, hW2.data(), hW2.size() * sizeof(float), cudaMemcpyHostToDevice));

  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  const float one = 1.f, zero = 0.f;
  CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, HID, BATCH, IN_F, &one, dW1, HID, dX,
                           IN_F, &zero, dPre, HID));
  bias_relu<<<(HID * BATCH + 255) / 256, 256>>>(dPre, db1, dAct, HID, BATCH);
  CUDA_CHECK(cudaGetLastError());
  CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, OUT_F, BATCH, HID, &one, dW2, OUT_F, dAct,
                           HID, &zero, dY, OUT_F));
  CUDA_CHECK(cudaMemcpy(hY.data(), dY, hY.size() * sizeof(float), cudaMemcpyDeviceToHost));
  printf("y[0] = %f, y[last] = %f\n", hY[0], hY[hY.size() - 1]);

  CUBLAS_CHECK(cublasDestroy(handle));
  CUDA_CHECK(cudaFree(dX));
  CUDA_CHECK(cudaFree(dW1));
  CUDA_CHECK(cudaFree(db1));
  CUDA_CHECK(cudaFree(dW2));
  CUDA_CHECK(cudaFree(dPre));
  CUDA_CHECK(cudaFree(dAct));
  CUDA_CHECK(cudaFree(dY));
  return 0;
}

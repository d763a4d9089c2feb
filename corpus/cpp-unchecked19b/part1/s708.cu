// case: a vectorAdd-style program keeps every status in a cudaError_t and tests it, except the cudaSetDevice call that selects the GPU, whose status is dropped.
// expect: unchecked_cuda_result=1
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

__global__ void vectorAdd(const float* A, const float* B, float* C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) C[i] = A[i] + B[i];
}

static void fail(const char* what, cudaError_t err) {
  std::fprintf(stderr, "Failed to %s (error code %s)!\n", what, cudaGetErrorString(err));
  std::exit(EXIT_FAILURE);
}

int main(int argc, char** argv) {
  const int device = argc > 1 ? std::atoi(argv[1]) : 0;
  cudaSetDevice(device);  // EXPECT: unchecked_cuda_result

  cudaError_t err = cudaSuccess;
  const int numElements = 50000;
  const size_t size = numElements * sizeof(float);
  float* h_A = static_cast<float*>(std::malloc(size));
  float* h_B = static_cast<float*>(std::malloc(size));
  float* h_C = static_cast<float*>(std::malloc(size));
  for (int i = 0; i < numElements; ++i) {
    h_A[i] = std::rand() / static_cast<float>(RAND_MAX);
    h_B[i] = std::rand() / static_cast<float>(RAND_MAX);
  }

  float *d_A = nullptr, *d_B = nullptr, *d_C = nullptr;
  err = cudaMalloc(&d_A, size);
  if (err != cudaSuccess) fail("allocate device vector A", err);
  err = cudaMalloc(&d_B, size);
  if (err != cudaSuccess) fail("allocate device vector B", err);
  err = cudaMalloc(&d_C, size);
  if (err != cudaSuccess) fail("allocate device vector C", err);

  err = cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice);
  if (err != cudaSuccess) fail("copy vector A from host to device", err);
  err = cudaMemcpy(d_B, h_B, size, cudaMemcpyHostToDevice);
  if (err != cudaSuccess) fail("copy vector B from host to device", err);

  const int threadsPerBlock = 256;
  const int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  err = cudaGetLastError();
  if (err != cudaSuccess) fail("launch vectorAdd kernel", err);

  err = cudaMemcpy(h_C, d_C, size, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) fail("copy vector C from device to host", err);

  for (int i = 0; i < numElements; ++i) {
    if (std::fabs(h_A[i] + h_B[i] - h_C[i]) > 1e-5f) {
      std::fprintf(stderr, "Result verification failed at element %d!\n", i);
      break;
    }
  }

  err = cudaFree(d_A);
  if (err != cudaSuccess) fail("free device vector A", err);
  err = cudaFree(d_B);
  if (err != cudaSuccess) fail("free device vector B", err);
  err = cudaFree(d_C);
  if (err != cudaSuccess) fail("free device vector C", err);

  std::free(h_A);
  std::free(h_B);
  std::free(h_C);
  std::printf("Done\n");
  return 0;
}

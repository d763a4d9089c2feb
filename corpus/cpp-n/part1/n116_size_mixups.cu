// case: Image statistics tool with two size mix-ups: the double-precision reference buffer is still allocated with sizeof(float) while its upload copies N_PIX doubles, and the driver-API histogram clear passes a byte count to cuMemsetD32, whose count is in 32-bit words (4x the allocation).
// expect: copy_out_of_bounds=2
#include <cuda.h>
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
#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      fprintf(stderr, "%s:%d: driver error %d\n", __FILE__, __LINE__, int(r_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

#define N_PIX (1920 * 1080)
#define N_BINS 256

__global__ void luminance_hist(const float* lum, unsigned int* hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = int(lum[i] * (N_BINS - 1));
    atomicAdd(&hist[b < 0 ? 0 : (b >= N_BINS ? N_BINS - 1 : b)], 1u);
  }
}

__global__ void max_abs_err(const float* lum, const double* ref, float* err, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) err[i] = float(fabs(double(lum[i]) - ref[i]));
}

int main() {
  float* h_lum = new float[N_PIX];
  double* h_ref = new double[N_PIX];
  for (int i = 0; i < N_PIX; ++i) {
    h_lum[i] = float(i % 1920) / 1920.0f;
    h_ref[i] = double(i % 1920) / 1920.0;
  }

  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));  // make the primary context current for the driver calls below

  float *d_lum, *d_err;
  double* d_ref;
  CUDA_CHECK(cudaMalloc(&d_lum, N_PIX * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_err, N_PIX * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_ref, N_PIX * sizeof(float)));  // was float before the reference went to double
  CUDA_CHECK(cudaMemcpy(d_lum, h_lum, N_PIX * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_ref, h_ref, N_PIX * sizeof(double), cudaMemcpyHostToDevice));  // EXPECT: copy_out_of_bounds

  CUdeviceptr d_hist;
  CU_CHECK(cuMemAlloc(&d_hist, N_BINS * sizeof(unsigned int)));
  CU_CHECK(cuMemsetD32(d_hist, 0, N_BINS * sizeof(unsigned int)));  // EXPECT: copy_out_of_bounds

  luminance_hist<<<(N_PIX + 255) / 256, 256>>>(d_lum, (unsigned int*)d_hist, N_PIX);
  max_abs_err<<<(N_PIX + 255) / 256, 256>>>(d_lum, d_ref, d_err, N_PIX);
  CUDA_CHECK(cudaGetLastError());

  unsigned int h_hist[N_BINS];
  CU_CHECK(cuMemcpyDtoH(h_hist, d_hist, sizeof(h_hist)));
  float* h_err = new float[N_PIX];
  CUDA_CHECK(cudaMemcpy(h_err, d_err, N_PIX * sizeof(float), cudaMemcpyDeviceToHost));
  float worst = 0.f;
  for (int i = 0; i < N_PIX; ++i) worst = h_err[i] > worst ? h_err[i] : worst;
  printf("bin[0]=%u bin[255]=%u max err %g\n", h_hist[0], h_hist[N_BINS - 1], worst);

  CU_CHECK(cuMemFree(d_hist));
  CUDA_CHECK(cudaFree(d_lum));
  CUDA_CHECK(cudaFree(d_err));
  CUDA_CHECK(cudaFree(d_ref));
  delete[] h_lum;
  delete[] h_ref;
  delete[] h_err;
  return 0;
}

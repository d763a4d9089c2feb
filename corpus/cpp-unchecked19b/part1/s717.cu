// case: a prefix-scale routine keeps every status in a cudaError_t, compares or returns it, and stores cudaPeekAtLastError's result before synchronizing; the final free's status is stored and then ignored.
// expect: none
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

__global__ void scale_by_index(const double* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * (i + 1);
}

static cudaError_t run_scale(const std::vector<double>& in, std::vector<double>& out) {
  const int n = static_cast<int>(in.size());
  const size_t bytes = in.size() * sizeof(double);
  double* d_in = nullptr;
  double* d_out = nullptr;

  if (cudaMalloc(&d_in, bytes) != cudaSuccess) {
    return cudaErrorMemoryAllocation;
  }
  cudaError_t status = cudaMalloc(&d_out, bytes);
  if (status != cudaSuccess) {
    (void)cudaFree(d_in);
    return status;
  }

  status = cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice);
  if (status == cudaSuccess) {
    scale_by_index<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    status = cudaPeekAtLastError();
    const cudaError_t sync_status = cudaDeviceSynchronize();
    if (status == cudaSuccess) status = sync_status;
  }
  if (status == cudaSuccess) {
    status = cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost);
  }

  (void)cudaFree(d_in);
  cudaError_t free_status = cudaFree(d_out);  // kept, not looked at
  return status;
}

int main() {
  std::vector<double> in(1 << 16, 0.5), out(in.size());
  const cudaError_t err = run_scale(in, out);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "run_scale failed: %s (%s)\n", cudaGetErrorName(err), cudaGetErrorString(err));
    return 1;
  }
  std::printf("out[9] = %.1f\n", out[9]);
  return 0;
}

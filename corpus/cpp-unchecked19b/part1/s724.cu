// case: statuses are passed to a logging function, tested with C++17 if-initializers and switch, returned from helpers, and the launch error is read into a variable before cudaDeviceSynchronize; nothing is dropped.
// expect: none
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

static bool log_status(const char* what, cudaError_t status) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "[gpu] %s: %s\n", what, cudaGetErrorString(status));
  return false;
}

__global__ void accumulate(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}

static cudaError_t upload(int* d_dst, const std::vector<int>& src) {
  return cudaMemcpy(d_dst, src.data(), src.size() * sizeof(int), cudaMemcpyHostToDevice);
}

static cudaError_t release(int* d_in, int* d_out) {
  const cudaError_t first = cudaFree(d_in);
  const cudaError_t second = cudaFree(d_out);
  return first != cudaSuccess ? first : second;
}

int main() {
  const int n = 1 << 20;
  std::vector<int> h_in(n, 3);

  int device_count = 0;
  switch (cudaGetDeviceCount(&device_count)) {
    case cudaSuccess:
      break;
    default:
      std::fprintf(stderr, "no usable CUDA device\n");
      return 1;
  }

  int* d_in = nullptr;
  int* d_out = nullptr;
  if (!log_status("cudaMalloc in", cudaMalloc(&d_in, n * sizeof(int)))) return 1;
  if (!log_status("cudaMalloc out", cudaMalloc(&d_out, sizeof(int)))) {
    (void)cudaFree(d_in);
    return 1;
  }

  bool ok = log_status("upload", upload(d_in, h_in)) &&
            log_status("memset", cudaMemset(d_out, 0, sizeof(int)));
  int result = 0;
  if (ok) {
    accumulate<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    cudaError_t launchErr = cudaGetLastError();
    ok = log_status("accumulate launch", launchErr);
    if (cudaError_t syncErr = cudaDeviceSynchronize(); syncErr != cudaSuccess) {
      ok = log_status("accumulate", syncErr);
    }
  }
  if (ok) {
    ok = log_status("download", cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  }

  ok = log_status("release", release(d_in, d_out)) && ok;
  std::printf("%s: sum = %d (expected %d)\n", ok ? "ok" : "failed", result, 3 * n);
  return ok ? 0 : 1;
}

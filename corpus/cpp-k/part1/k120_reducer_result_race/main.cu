// case: Signal statistics with a two-pass reducer class (reducer.cuh) whose result() reads a pinned slot filled by an async copy; the sum is read after wait(), but the peak reducer's result() is read right after launch() with no wait; the input is also uploaded with cudaMemcpyAsync from a 16 MiB std::vector.
// expect: missing_sync=1, pageable_async_copy=1
#include "reducer.cuh"

#include <cmath>
#include <vector>

__global__ void square_inplace(float* v, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * v[i];
}

int main() {
  const size_t n = size_t(1) << 22;
  std::vector<float> signal(n);
  for (size_t i = 0; i < n; ++i)
    signal[i] = 0.5f * std::sin(0.0007f * i) + 0.25f * std::sin(0.031f * i + 1.f);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* d_signal = nullptr;
  CUDA_CHECK(cudaMalloc(&d_signal, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpyAsync(d_signal, signal.data(), n * sizeof(float), cudaMemcpyHostToDevice,  // EXPECT: pageable_async_copy
                             stream));

  {
    DeviceReducer<float, SumOp> sum(128, stream);
    DeviceReducer<float, MaxOp> peak(128, stream);

    sum.launch(d_signal, n, 0.f);
    sum.wait();
    const float mean = sum.result() / n;

    square_inplace<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(d_signal, n);
    peak.launch(d_signal, n, -FLT_MAX);
    const float peak_power = peak.result();

    std::printf("mean %.6f, peak power %.6f\n", mean, peak_power);
  }

  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaFree(d_signal));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}

// case: metrics exporter copies per-class counts into a std::vector with cudaMemcpyAsync and reads them only after cudaStreamSynchronize (the pageable copy is still reported as slow)
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void confusion_kernel(const int* pred, const int* truth, int n, int classes, unsigned int* matrix) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&matrix[truth[i] * classes + pred[i]], 1u);
}

std::vector<unsigned int> confusion_matrix(const int* d_pred, const int* d_truth, int n, int classes, cudaStream_t stream) {
  const size_t cells = static_cast<size_t>(classes) * classes;
  unsigned int* d_matrix = nullptr;
  cudaMalloc(&d_matrix, cells * sizeof(unsigned int));
  cudaMemsetAsync(d_matrix, 0, cells * sizeof(unsigned int), stream);
  confusion_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_pred, d_truth, n, classes, d_matrix);

  std::vector<unsigned int> h_matrix(cells);
  cudaMemcpyAsync(h_matrix.data(), d_matrix, cells * sizeof(unsigned int), cudaMemcpyDeviceToHost, stream);  // EXPECT: pageable_async_copy
  cudaStreamSynchronize(stream);
  cudaFree(d_matrix);
  return h_matrix;
}

int main(int argc, char** argv) {
  const int classes = argc > 1 ? std::atoi(argv[1]) : 200;
  const int n = 1 << 20;
  std::vector<int> h_pred(n), h_truth(n);
  for (int i = 0; i < n; ++i) {
    h_truth[i] = i % classes;
    h_pred[i] = (i % 10 == 0) ? (i / 10) % classes : h_truth[i];
  }
  int *d_pred = nullptr, *d_truth = nullptr;
  cudaMalloc(&d_pred, n * sizeof(int));
  cudaMalloc(&d_truth, n * sizeof(int));
  cudaMemcpy(d_pred, h_pred.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_truth, h_truth.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  std::vector<unsigned int> m = confusion_matrix(d_pred, d_truth, n, classes, stream);
  unsigned long long correct = 0;
  for (int c = 0; c < classes; ++c) correct += m[static_cast<size_t>(c) * classes + c];
  std::printf("accuracy %.4f\n", static_cast<double>(correct) / n);

  cudaFree(d_pred);
  cudaFree(d_truth);
  cudaStreamDestroy(stream);
  return 0;
}

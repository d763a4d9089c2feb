// case: evaluation step copies per-sample losses into a std::vector with cudaMemcpyAsync and sums them on the host before synchronizing the stream: right only because the pageable copy is synchronous today
// expect: relies_on_implicit_sync=1, pageable_async_copy=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

__global__ void cross_entropy_kernel(const float* logits, const int* labels, float* loss, int batch, int classes) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch) return;
  const float* row = logits + static_cast<size_t>(b) * classes;
  float m = row[0];
  for (int c = 1; c < classes; ++c) m = fmaxf(m, row[c]);
  float s = 0.0f;
  for (int c = 0; c < classes; ++c) s += expf(row[c] - m);
  loss[b] = logf(s) + m - row[labels[b]];
}

struct Evaluator {
  cudaStream_t stream;
  float* d_loss;
  int batch;
  int classes;

  double mean_loss(const float* d_logits, const int* d_labels) {
    std::vector<float> h_loss(batch);
    cross_entropy_kernel<<<(batch + 127) / 128, 128, 0, stream>>>(d_logits, d_labels, d_loss, batch, classes);
    cudaMemcpyAsync(h_loss.data(), d_loss, batch * sizeof(float), cudaMemcpyDeviceToHost, stream);  // EXPECT: pageable_async_copy
    double total = std::accumulate(h_loss.begin(), h_loss.end(), 0.0);  // EXPECT: relies_on_implicit_sync
    cudaStreamSynchronize(stream);  // end of step
    return total / batch;
  }
};

int main(int argc, char** argv) {
  const int batch = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int classes = 1000;
  std::vector<float> h_logits(static_cast<size_t>(batch) * classes);
  std::vector<int> h_labels(batch);
  for (size_t i = 0; i < h_logits.size(); ++i) h_logits[i] = std::sin(0.001f * i);
  for (int b = 0; b < batch; ++b) h_labels[b] = (b * 7) % classes;

  Evaluator ev{nullptr, nullptr, batch, classes};
  cudaStreamCreate(&ev.stream);
  float* d_logits = nullptr;
  int* d_labels = nullptr;
  cudaMalloc(&d_logits, h_logits.size() * sizeof(float));
  cudaMalloc(&d_labels, batch * sizeof(int));
  cudaMalloc(&ev.d_loss, batch * sizeof(float));
  cudaMemcpy(d_logits, h_logits.data(), h_logits.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_labels, h_labels.data(), batch * sizeof(int), cudaMemcpyHostToDevice);

  std::printf("mean loss: %f\n", ev.mean_loss(d_logits, d_labels));

  cudaFree(d_logits);
  cudaFree(d_labels);
  cudaFree(ev.d_loss);
  cudaStreamDestroy(ev.stream);
  return 0;
}

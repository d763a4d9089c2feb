// case: feature extractor exporting activations on a second non-blocking stream with no event between the producing kernel (compute stream) and the device-to-host copy (copy stream): the copy reads the activation buffer while the kernel may still write it
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "features: %s\n", cudaGetErrorString(e_));           \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void conv1d_relu(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float l = i > 0 ? in[i - 1] : 0.f;
  float r = i + 1 < n ? in[i + 1] : 0.f;
  out[i] = fmaxf(0.25f * l + 0.5f * in[i] + 0.25f * r, 0.f);
}

struct Streams {
  cudaStream_t compute;
  cudaStream_t copy;
};

int main() {
  const int n = 1 << 23;
  const int layers = 8;
  Streams st{};
  CUDA_CHECK(cudaStreamCreateWithFlags(&st.compute, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&st.copy, cudaStreamNonBlocking));

  std::vector<float*> d_act(layers + 1, nullptr);
  for (float*& p : d_act) CUDA_CHECK(cudaMalloc(&p, n * sizeof(float)));
  float* h_feat = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_feat, n * sizeof(float)));
  for (int i = 0; i < n; ++i) h_feat[i] = float(i % 255) / 255.f;
  CUDA_CHECK(cudaMemcpyAsync(d_act[0], h_feat, n * sizeof(float), cudaMemcpyHostToDevice, st.compute));
  CUDA_CHECK(cudaStreamSynchronize(st.compute));

  for (int l = 0; l < layers; ++l) {
    conv1d_relu<<<(n + 255) / 256, 256, 0, st.compute>>>(d_act[l], d_act[l + 1], n);
    // export on the copy stream so the next layer can start right away
    CUDA_CHECK(cudaMemcpyAsync(h_feat, d_act[l + 1], n * sizeof(float), cudaMemcpyDeviceToHost, st.copy));  // EXPECT: missing_sync
    CUDA_CHECK(cudaStreamSynchronize(st.copy));
    double energy = 0.0;
    for (int i = 0; i < n; ++i) energy += double(h_feat[i]) * h_feat[i];
    std::printf("layer %d energy %.3f\n", l, energy);
  }

  CUDA_CHECK(cudaStreamSynchronize(st.compute));
  cudaFreeHost(h_feat);
  for (float* p : d_act) cudaFree(p);
  cudaStreamDestroy(st.copy);
  cudaStreamDestroy(st.compute);
  return 0;
}

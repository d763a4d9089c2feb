// case: A two-layer MLP inference program keeps each layer's weights and bias as device pointers in a struct; the --debug statistics helper was written as if those fields were host copies and reads d_weight and d_bias directly on the host.
// expect: host_deref_device_ptr=2
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CHECK_CUDA(expr)                                                     \
  do {                                                                       \
    cudaError_t status = (expr);                                             \
    if (status != cudaSuccess) {                                             \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n",                       \
                   cudaGetErrorString(status), __FILE__, __LINE__);          \
      std::abort();                                                          \
    }                                                                        \
  } while (0)

struct DenseLayer {
  int in_features = 0;
  int out_features = 0;
  float* d_weight = nullptr;  // out_features x in_features, row-major
  float* d_bias = nullptr;    // out_features
};

__global__ void dense_relu(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ b, float* __restrict__ y,
                           int batch, int in_f, int out_f) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y;
  if (o >= out_f || n >= batch) return;
  float acc = b[o];
  for (int k = 0; k < in_f; ++k) acc += w[o * in_f + k] * x[n * in_f + k];
  y[n * out_f + o] = acc > 0.f ? acc : 0.f;
}

static DenseLayer make_layer(int in_f, int out_f, std::mt19937& rng) {
  DenseLayer L;
  L.in_features = in_f;
  L.out_features = out_f;
  std::normal_distribution<float> dist(0.f, 1.f / std::sqrt(static_cast<float>(in_f)));
  std::vector<float> w(static_cast<size_t>(in_f) * out_f), b(out_f, 0.01f);
  for (auto& v : w) v = dist(rng);
  CHECK_CUDA(cudaMalloc(&L.d_weight, w.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&L.d_bias, b.size() * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(L.d_weight, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(L.d_bias, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  return L;
}

static void destroy_layer(DenseLayer& L) {
  CHECK_CUDA(cudaFree(L.d_weight));
  CHECK_CUDA(cudaFree(L.d_bias));
  L.d_weight = L.d_bias = nullptr;
}

static void print_layer_stats(const char* name, const DenseLayer& L) {
  const size_t nw = static_cast<size_t>(L.in_features) * L.out_features;
  float wmin = L.d_weight[0], wmax = L.d_weight[0];  // EXPECT: host_deref_device_ptr
  double wsum = 0.0;
  for (size_t i = 0; i < nw; ++i) {
    wmin = std::fmin(wmin, L.d_weight[i]);
    wmax = std::fmax(wmax, L.d_weight[i]);
    wsum += L.d_weight[i];
  }
  std::printf("%s: %dx%d  w[min %.4f max %.4f mean %.5f]  b[0]=%.4f\n", name,
              L.out_features, L.in_features, wmin, wmax, wsum / nw,
              L.d_bias[0]);  // EXPECT: host_deref_device_ptr
}

static void forward(const DenseLayer& L, const float* d_x, float* d_y, int batch) {
  dim3 block(128);
  dim3 grid((L.out_features + block.x - 1) / block.x, batch);
  dense_relu<<<grid, block>>>(d_x, L.d_weight, L.d_bias, d_y, batch,
                              L.in_features, L.out_features);
  CHECK_CUDA(cudaGetLastError());
}

int main(int argc, char** argv) {
  const bool debug = argc > 1 && std::strcmp(argv[1], "--debug") == 0;
  const int batch = 32, in_f = 784, hidden = 256, out_f = 10;
  std::mt19937 rng(42);

  DenseLayer fc1 = make_layer(in_f, hidden, rng);
  DenseLayer fc2 = make_layer(hidden, out_f, rng);
  if (debug) print_layer_stats("fc1", fc1);  // the input layer is the one that drifts

  std::vector<float> h_x(static_cast<size_t>(batch) * in_f);
  for (size_t i = 0; i < h_x.size(); ++i) h_x[i] = static_cast<float>(i % 255) / 255.f;

  float *d_x, *d_h, *d_y;
  CHECK_CUDA(cudaMalloc(&d_x, h_x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_h, static_cast<size_t>(batch) * hidden * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_y, static_cast<size_t>(batch) * out_f * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d_x, h_x.data(), h_x.size() * sizeof(float), cudaMemcpyHostToDevice));

  forward(fc1, d_x, d_h, batch);
  forward(fc2, d_h, d_y, batch);

  std::vector<float> h_y(static_cast<size_t>(batch) * out_f);
  CHECK_CUDA(cudaMemcpy(h_y.data(), d_y, h_y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int n = 0; n < 4; ++n) {
    int best = 0;
    for (int o = 1; o < out_f; ++o)
      if (h_y[n * out_f + o] > h_y[n * out_f + best]) best = o;
    std::printf("sample %d -> class %d\n", n, best);
  }

  CHECK_CUDA(cudaFree(d_x));
  CHECK_CUDA(cudaFree(d_h));
  CHECK_CUDA(cudaFree(d_y));
  destroy_layer(fc1);
  destroy_layer(fc2);
  return 0;
}

// case: logistic regression with the gradient on one non-blocking stream and the weight update on another; between them the host only frees the standardisation statistics (already waited for), so the update kernel reads the gradient ordered only by that cudaFree
// expect: relies_on_implicit_sync=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "logreg_kernels.cuh"

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return EXIT_FAILURE;                                                        \
    }                                                                             \
  } while (0)

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 8192;
  const int cols = 64;
  const float lr = 0.5f;

  std::vector<float> hx(static_cast<size_t>(rows) * cols), hy(rows), hw(cols, 0.f);
  for (int r = 0; r < rows; ++r) {
    float z = 0.f;
    for (int j = 0; j < cols; ++j) {
      const float v = std::sin(0.013f * r * (j + 1)) * 3.f + j;
      hx[static_cast<size_t>(r) * cols + j] = v;
      z += (j % 2 ? 1.f : -1.f) * v;
    }
    hy[r] = z > 0.f ? 1.f : 0.f;
  }

  float *d_x = nullptr, *d_y = nullptr, *d_w = nullptr, *d_grad = nullptr, *d_stats = nullptr;
  CHECK(cudaMalloc(&d_x, hx.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_y, rows * sizeof(float)));
  CHECK(cudaMalloc(&d_w, cols * sizeof(float)));
  CHECK(cudaMalloc(&d_grad, cols * sizeof(float)));
  CHECK(cudaMalloc(&d_stats, 2 * cols * sizeof(float)));
  CHECK(cudaMemcpy(d_x, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_y, hy.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_w, hw.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());

  cudaStream_t s_compute, s_update;
  CHECK(cudaStreamCreateWithFlags(&s_compute, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s_update, cudaStreamNonBlocking));

  // Preprocessing: standardise the features in place, then wait for it.
  column_stats<<<(cols + 63) / 64, 64, 0, s_compute>>>(d_x, d_stats, rows, cols);
  standardize<<<(hx.size() + 255) / 256, 256, 0, s_compute>>>(d_x, d_stats, rows, cols);
  CHECK(cudaStreamSynchronize(s_compute));

  // One training step.
  logistic_grad<<<(cols + 63) / 64, 64, 0, s_compute>>>(d_x, d_y, d_w, d_grad, rows, cols);
  CHECK(cudaFree(d_stats));
  sgd_update<<<(cols + 63) / 64, 64, 0, s_update>>>(d_w, d_grad, cols, lr);  // EXPECT: relies_on_implicit_sync
  CHECK(cudaGetLastError());

  CHECK(cudaStreamSynchronize(s_compute));
  CHECK(cudaStreamSynchronize(s_update));
  CHECK(cudaMemcpy(hw.data(), d_w, cols * sizeof(float), cudaMemcpyDeviceToHost));
  double norm = 0.0;
  for (float v : hw) norm += double(v) * v;
  std::printf("|w| after one step: %.5f\n", std::sqrt(norm));

  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  CHECK(cudaFree(d_w));
  CHECK(cudaFree(d_grad));
  CHECK(cudaStreamDestroy(s_compute));
  CHECK(cudaStreamDestroy(s_update));
  return 0;
}

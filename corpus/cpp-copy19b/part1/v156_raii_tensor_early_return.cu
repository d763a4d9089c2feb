// case: a softmax cross-entropy evaluation using an RAII GpuTensor class whose destructor frees its allocation, with an early return on a label-range error that still runs the destructors
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

class GpuTensor {
 public:
  explicit GpuTensor(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&p_, n_ * sizeof(float))); }
  ~GpuTensor() {
    if (p_) cudaFree(p_);
  }
  GpuTensor(const GpuTensor &) = delete;
  GpuTensor &operator=(const GpuTensor &) = delete;
  GpuTensor(GpuTensor &&o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }

  float *data() { return p_; }
  size_t size() const { return n_; }

 private:
  float *p_ = nullptr;
  size_t n_;
};

__global__ void xent_loss(const float *logits, const int *labels, float *loss, int classes, int batch) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= batch) return;
  const float *row = logits + (size_t)r * classes;
  float m = row[0];
  for (int j = 1; j < classes; ++j) m = fmaxf(m, row[j]);
  float s = 0.f;
  for (int j = 0; j < classes; ++j) s += __expf(row[j] - m);
  loss[r] = logf(s) + m - row[labels[r]];
}

static int evaluate(const std::vector<float> &logits, const std::vector<int> &labels, int classes,
                    double *mean_loss) {
  const int batch = (int)labels.size();
  GpuTensor d_logits(logits.size());
  GpuTensor d_loss(batch);
  for (int l : labels)
    if (l < 0 || l >= classes) return -1;

  int *d_labels = nullptr;
  CUDA_CHECK(cudaMalloc(&d_labels, batch * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_labels, labels.data(), batch * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_logits.data(), logits.data(), logits.size() * sizeof(float), cudaMemcpyHostToDevice));
  xent_loss<<<(batch + 127) / 128, 128>>>(d_logits.data(), d_labels, d_loss.data(), classes, batch);
  CUDA_CHECK(cudaGetLastError());

  std::vector<float> h_loss(batch);
  CUDA_CHECK(cudaMemcpy(h_loss.data(), d_loss.data(), batch * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_labels));

  double s = 0.0;
  for (float v : h_loss) s += v;
  *mean_loss = s / batch;
  return 0;
}

int main() {
  const int batch = 8192, classes = 100;
  std::vector<float> logits((size_t)batch * classes);
  std::vector<int> labels(batch);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(0.37f * (float)i);
  for (int r = 0; r < batch; ++r) labels[r] = (r * 7) % classes;

  double loss = 0.0;
  if (evaluate(logits, labels, classes, &loss) != 0) {
    fprintf(stderr, "invalid labels\n");
    return 1;
  }
  printf("mean cross-entropy: %.4f\n", loss);
  return 0;
}

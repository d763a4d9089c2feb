// case: a physics engine's sort-based broadphase handles its cudaMalloc'd pointers on the host only as values (sizeof(*p), std::swap of ping-pong buffers, &p[i], a vector of device pointers, null checks, %p logging) and reads results through blocking cudaMemcpy into host memory; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Aabb { float lo[3]; float hi[3]; };

__global__ void morton_keys(const Aabb* boxes, int n, unsigned* keys) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float cx = 0.5f * (boxes[i].lo[0] + boxes[i].hi[0]);
  keys[i] = (static_cast<unsigned>(cx * 1024.f) << 12) | static_cast<unsigned>(i & 0xfff);
}

__global__ void odd_even_step(const unsigned* in, unsigned* out, int n, int phase) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int partner = ((i & 1) == (phase & 1)) ? i + 1 : i - 1;
  unsigned mine = in[i];
  if (partner < 0 || partner >= n) { out[i] = mine; return; }
  unsigned other = in[partner];
  out[i] = (i < partner) ? min(mine, other) : max(mine, other);
}

__global__ void count_overlaps(const unsigned* lower, const unsigned* upper, int half, unsigned* pairs) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < half && (lower[i] >> 12) == (upper[i] >> 12)) atomicAdd(pairs, 1u);
}

class Broadphase {
 public:
  explicit Broadphase(int n) : n_(n) {
    CUDA_CHECK(cudaMalloc(&d_boxes_, n_ * sizeof(*d_boxes_)));
    CUDA_CHECK(cudaMalloc(&d_keys_a_, n_ * sizeof(*d_keys_a_)));
    CUDA_CHECK(cudaMalloc(&d_keys_b_, n_ * sizeof(*d_keys_b_)));
    CUDA_CHECK(cudaMalloc(&d_pairs_, sizeof(*d_pairs_)));
  }
  ~Broadphase() {
    std::vector<void*> owned{d_boxes_, d_keys_a_, d_keys_b_, d_pairs_};
    for (void* p : owned)
      if (p != nullptr) cudaFree(p);
  }

  unsigned step(const std::vector<Aabb>& boxes) {
    if (d_boxes_ == nullptr || boxes.size() < size_t(n_)) return 0;
    const int threads = 256, blocks = (n_ + threads - 1) / threads;
    CUDA_CHECK(cudaMemcpy(d_boxes_, boxes.data(), n_ * sizeof(Aabb), cudaMemcpyHostToDevice));
    morton_keys<<<blocks, threads>>>(d_boxes_, n_, d_keys_a_);
    for (int phase = 0; phase < 8; ++phase) {
      odd_even_step<<<blocks, threads>>>(d_keys_a_, d_keys_b_, n_, phase);
      std::swap(d_keys_a_, d_keys_b_);  // the sorted keys are always in d_keys_a_
    }
    const int half = n_ / 2;
    unsigned* upper = &d_keys_a_[half];  // address arithmetic, nothing is read
    CUDA_CHECK(cudaMemset(d_pairs_, 0, sizeof(unsigned)));
    count_overlaps<<<(half + threads - 1) / threads, threads>>>(d_keys_a_, upper, half, d_pairs_);
    CUDA_CHECK(cudaGetLastError());

    unsigned pairs = 0;
    CUDA_CHECK(cudaMemcpy(&pairs, d_pairs_, sizeof(pairs), cudaMemcpyDeviceToHost));
    std::vector<unsigned> head(16);
    CUDA_CHECK(cudaMemcpy(head.data(), d_keys_a_, head.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    if (head[0] > head[1]) std::printf("warning: keys not sorted at the head\n");
    std::printf("sorted keys at %p, upper half at %p\n", static_cast<void*>(d_keys_a_), static_cast<void*>(upper));
    return pairs;
  }

 private:
  int n_;
  Aabb* d_boxes_ = nullptr;
  unsigned* d_keys_a_ = nullptr;
  unsigned* d_keys_b_ = nullptr;
  unsigned* d_pairs_ = nullptr;
};

int main() {
  const int n = 1 << 16;
  std::vector<Aabb> boxes(n);
  for (int i = 0; i < n; ++i) {
    float x = static_cast<float>((i * 37) % 1000) / 1000.f;
    boxes[i] = Aabb{{x, 0.f, 0.f}, {x + 0.01f, 1.f, 1.f}};
  }
  Broadphase bp(n);
  for (int frame = 0; frame < 4; ++frame) std::printf("frame %d: %u candidate pairs\n", frame, bp.step(boxes));
  return 0;
}

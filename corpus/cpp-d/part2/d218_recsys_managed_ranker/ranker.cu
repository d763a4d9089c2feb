// case: a recommendation ranker keeps item scores and its request config in ManagedArray members; while the scoring kernel runs it writes the next request's config (memory the kernel does not use) and then peeks at the top score (memory the kernel writes) before synchronizing.
// expect: missing_sync=1, managed_concurrent_access=1
#include "managed_array.cuh"
#include <vector>

struct RequestConfig {
  int top_k;
  float diversity;
  int user_id;
};

__global__ void score_items(const float* user_vec, const float* item_emb, int items, int dim, float* scores) {
  int it = blockIdx.x * blockDim.x + threadIdx.x;
  if (it >= items) return;
  float dot = 0.f;
  for (int d = 0; d < dim; ++d) dot += user_vec[d] * item_emb[(size_t)it * dim + d];
  scores[it] = dot;
}

class Ranker {
 public:
  Ranker(int items, int dim)
      : items_(items), dim_(dim), user_(dim), emb_(size_t(items) * dim), scores_(items), config_(1) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    float* e = emb_.data();
    for (size_t i = 0; i < emb_.size(); ++i) e[i] = 0.001f * static_cast<float>(i % 1000);
  }
  ~Ranker() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }

  float serve(int user_id, const RequestConfig& next) {
    float* u = user_.data();
    for (int d = 0; d < dim_; ++d) u[d] = 0.01f * static_cast<float>((user_id * 31 + d) % 100);
    score_items<<<(items_ + 255) / 256, 256, 0, stream_>>>(u, emb_.data(), items_, dim_, scores_.data());
    CUDA_CHECK(cudaGetLastError());

    RequestConfig* cfg = config_.data();
    cfg->top_k = next.top_k;  // EXPECT: managed_concurrent_access
    cfg->diversity = next.diversity;
    cfg->user_id = next.user_id;

    const float* s = scores_.data();
    float first = s[0];  // EXPECT: missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    float best = first;
    for (int i = 1; i < items_; ++i) best = s[i] > best ? s[i] : best;
    return best;
  }

 private:
  int items_;
  int dim_;
  cudaStream_t stream_ = nullptr;
  ManagedArray<float> user_;
  ManagedArray<float> emb_;
  ManagedArray<float> scores_;
  ManagedArray<RequestConfig> config_;
};

int main() {
  Ranker ranker(100000, 64);
  std::vector<int> users{17, 4242, 90001, 5};
  for (size_t i = 0; i < users.size(); ++i) {
    RequestConfig next{50, 0.2f, users[(i + 1) % users.size()]};
    std::printf("user %d best score %.4f\n", users[i], ranker.serve(users[i], next));
  }
  return 0;
}

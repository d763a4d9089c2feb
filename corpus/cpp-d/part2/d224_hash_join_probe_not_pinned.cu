// case: a database GPU hash-join operator page-locks only its build-side std::vector (pinHost), yet uploads the probe side asynchronously from its unregistered vector, and its teardown unregisters both vectors, the probe side never having been registered.
// expect: pageable_async_copy=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct Tuple { int64_t key; int64_t payload; };
constexpr uint32_t kSlots = 1u << 22;

__global__ void build(const Tuple* r, size_t n, int64_t* table) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t h = static_cast<uint32_t>(r[i].key * 0x9E3779B1u) & (kSlots - 1);
  while (atomicCAS(reinterpret_cast<unsigned long long*>(&table[h]), ~0ull,
                   static_cast<unsigned long long>(r[i].key)) != ~0ull)
    h = (h + 1) & (kSlots - 1);
}

__global__ void probe(const Tuple* s, size_t n, const int64_t* table, unsigned long long* matches) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t h = static_cast<uint32_t>(s[i].key * 0x9E3779B1u) & (kSlots - 1);
  for (int step = 0; step < 32 && table[h] != -1; ++step, h = (h + 1) & (kSlots - 1))
    if (table[h] == s[i].key) { atomicAdd(matches, 1ull); return; }
}

template <typename T>
static void pinHost(std::vector<T>& v) {
  CUDA_CHECK(cudaHostRegister(v.data(), v.size() * sizeof(T), cudaHostRegisterPortable));
}

class HashJoinOperator {
 public:
  HashJoinOperator(std::vector<Tuple>& build_side, std::vector<Tuple>& probe_side)
      : r_(build_side), s_(probe_side) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    pinHost(r_);
    CUDA_CHECK(cudaMalloc(&d_r_, r_.size() * sizeof(Tuple)));
    CUDA_CHECK(cudaMalloc(&d_s_, s_.size() * sizeof(Tuple)));
    CUDA_CHECK(cudaMalloc(&d_table_, kSlots * sizeof(int64_t)));
    CUDA_CHECK(cudaMalloc(&d_matches_, sizeof(unsigned long long)));
  }
  ~HashJoinOperator() {
    cudaStreamSynchronize(stream_);
    cudaHostUnregister(r_.data());
    cudaHostUnregister(s_.data());  // EXPECT: mismatched_free
    cudaFree(d_matches_);
    cudaFree(d_table_);
    cudaFree(d_s_);
    cudaFree(d_r_);
    cudaStreamDestroy(stream_);
  }

  unsigned long long execute() {
    CUDA_CHECK(cudaMemsetAsync(d_table_, 0xff, kSlots * sizeof(int64_t), stream_));
    CUDA_CHECK(cudaMemsetAsync(d_matches_, 0, sizeof(unsigned long long), stream_));
    CUDA_CHECK(cudaMemcpyAsync(d_r_, r_.data(), r_.size() * sizeof(Tuple), cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(d_s_, s_.data(), s_.size() * sizeof(Tuple), cudaMemcpyHostToDevice, stream_));  // EXPECT: pageable_async_copy
    build<<<static_cast<unsigned>((r_.size() + 255) / 256), 256, 0, stream_>>>(d_r_, r_.size(), d_table_);
    probe<<<static_cast<unsigned>((s_.size() + 255) / 256), 256, 0, stream_>>>(d_s_, s_.size(), d_table_, d_matches_);
    CUDA_CHECK(cudaGetLastError());
    unsigned long long matches = 0;
    CUDA_CHECK(cudaMemcpyAsync(&matches, d_matches_, sizeof(matches), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return matches;
  }

 private:
  std::vector<Tuple>& r_;
  std::vector<Tuple>& s_;
  cudaStream_t stream_ = nullptr;
  Tuple* d_r_ = nullptr;
  Tuple* d_s_ = nullptr;
  int64_t* d_table_ = nullptr;
  unsigned long long* d_matches_ = nullptr;
};

int main() {
  std::vector<Tuple> orders(1 << 20), lineitems(4 << 20);
  for (size_t i = 0; i < orders.size(); ++i) orders[i] = Tuple{static_cast<int64_t>(i * 2), static_cast<int64_t>(i)};
  for (size_t i = 0; i < lineitems.size(); ++i) lineitems[i] = Tuple{static_cast<int64_t>(i % 3000000), 1};
  HashJoinOperator join(orders, lineitems);
  std::printf("orders JOIN lineitem: %llu rows\n", join.execute());
  return 0;
}

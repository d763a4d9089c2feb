// case: Embedding lookup whose device and pinned buffers are owned by std::unique_ptr with cudaFree / cudaFreeHost deleters, so every RETURN_IF_ERR early return releases them; all work is on the legacy default stream and the blocking download completes before the host reads the pinned result.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#define RETURN_IF_ERR(call)                                                     \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) return e_;                                           \
  } while (0)

struct CudaFreeDeleter {
  void operator()(void* p) const { cudaFree(p); }
};
struct CudaFreeHostDeleter {
  void operator()(void* p) const { cudaFreeHost(p); }
};
template <class T> using device_ptr = std::unique_ptr<T, CudaFreeDeleter>;
template <class T> using pinned_ptr = std::unique_ptr<T, CudaFreeHostDeleter>;

template <class T> static device_ptr<T> device_alloc(size_t n) {
  T* p = nullptr;
  if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
  return device_ptr<T>(p);
}
template <class T> static pinned_ptr<T> pinned_alloc(size_t n) {
  T* p = nullptr;
  if (cudaMallocHost(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
  return pinned_ptr<T>(p);
}

__global__ void gather_rows(const int* ids, const float* table, float* out, int n_ids, int dim, int vocab) {
  int r = blockIdx.x;
  if (r >= n_ids) return;
  int id = ids[r];
  if (id < 0 || id >= vocab) id = 0;
  for (int d = threadIdx.x; d < dim; d += blockDim.x) out[r * dim + d] = table[size_t(id) * dim + d];
}

static cudaError_t embed_lookup(const std::vector<int>& ids, const std::vector<float>& table, int vocab,
                                int dim, std::vector<float>& result) {
  const int n_ids = int(ids.size());
  auto d_ids = device_alloc<int>(n_ids);
  auto d_table = device_alloc<float>(table.size());
  auto d_out = device_alloc<float>(size_t(n_ids) * dim);
  auto h_out = pinned_alloc<float>(size_t(n_ids) * dim);

  RETURN_IF_ERR(cudaMemcpy(d_ids.get(), ids.data(), n_ids * sizeof(int), cudaMemcpyHostToDevice));
  RETURN_IF_ERR(cudaMemcpy(d_table.get(), table.data(), table.size() * sizeof(float), cudaMemcpyHostToDevice));
  gather_rows<<<n_ids, 128>>>(d_ids.get(), d_table.get(), d_out.get(), n_ids, dim, vocab);
  RETURN_IF_ERR(cudaGetLastError());
  RETURN_IF_ERR(cudaMemcpy(h_out.get(), d_out.get(), size_t(n_ids) * dim * sizeof(float), cudaMemcpyDeviceToHost));

  result.resize(size_t(n_ids) * dim);
  memcpy(result.data(), h_out.get(), result.size() * sizeof(float));
  return cudaSuccess;
}

int main() {
  const int vocab = 50000, dim = 256;
  std::vector<float> table(size_t(vocab) * dim);
  for (size_t i = 0; i < table.size(); ++i) table[i] = float(i % 1000) * 1e-3f;
  std::vector<int> ids = {17, 4242, 31337, 7, 49999, 0, 123, 9000};
  std::vector<float> emb;
  cudaError_t err = embed_lookup(ids, table, vocab, dim, emb);
  if (err != cudaSuccess) {
    fprintf(stderr, "embed_lookup: %s\n", cudaGetErrorString(err));
    return 1;
  }
  printf("emb[1][0] = %f\n", emb[dim]);
  return 0;
}

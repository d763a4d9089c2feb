// case: a seismic-imaging stage owns its buffers through smart pointers whose deleters match the allocator (a deleter struct with cudaFree for device and managed memory, a function-pointer deleter with cudaFreeHost for pinned memory, a shared_ptr with a lambda cudaFreeHost, std::free for malloc), made by template factories behind type aliases; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct CudaFree {
  void operator()(void* p) const { cudaFree(p); }  // device and managed memory
};
static void release_pinned(void* p) { cudaFreeHost(p); }
struct StdFree {
  void operator()(void* p) const { std::free(p); }
};

template <typename T> using DeviceBuf = std::unique_ptr<T[], CudaFree>;
template <typename T> using PinnedBuf = std::unique_ptr<T[], void (*)(void*)>;
template <typename T> using HeapBuf = std::unique_ptr<T[], StdFree>;

template <typename T> DeviceBuf<T> make_device(size_t n) {
  T* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
  return DeviceBuf<T>(p);
}
template <typename T> DeviceBuf<T> make_managed(size_t n) {
  T* p = nullptr;
  CUDA_CHECK(cudaMallocManaged(&p, n * sizeof(T)));
  return DeviceBuf<T>(p);
}
template <typename T> PinnedBuf<T> make_pinned(size_t n) {
  T* p = nullptr;
  CUDA_CHECK(cudaHostAlloc(&p, n * sizeof(T), cudaHostAllocPortable));
  return PinnedBuf<T>(p, &release_pinned);
}

__global__ void nmo_correct(const float* traces, int ntr, int ns, const float* vel, float* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int tr = blockIdx.y;
  if (t >= ns || tr >= ntr) return;
  float offset = 25.f * tr, t0 = 0.004f * t;
  float tx = sqrtf(t0 * t0 + offset * offset / (vel[t] * vel[t]));
  int src = min(static_cast<int>(tx / 0.004f), ns - 1);
  out[(size_t)tr * ns + t] = traces[(size_t)tr * ns + src];
}

int main() {
  const int ntr = 240, ns = 2000;
  const size_t samples = size_t(ntr) * ns;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  auto d_traces = make_device<float>(samples);
  auto d_out = make_device<float>(samples);
  auto velocity = make_managed<float>(ns);
  auto h_traces = make_pinned<float>(samples);
  std::shared_ptr<float> h_out;
  {
    float* raw = nullptr;
    CUDA_CHECK(cudaMallocHost(&raw, samples * sizeof(float)));
    h_out = std::shared_ptr<float>(raw, [](float* p) { cudaFreeHost(p); });
  }
  HeapBuf<char> report(static_cast<char*>(std::malloc(256)));
  if (!report) return 1;

  for (int t = 0; t < ns; ++t) velocity[t] = 1500.f + 0.75f * t;  // no kernel launched yet
  for (size_t i = 0; i < samples; ++i) h_traces[i] = static_cast<float>((i * 2654435761u) % 2001) / 1000.f - 1.f;

  CUDA_CHECK(cudaMemcpyAsync(d_traces.get(), h_traces.get(), samples * sizeof(float), cudaMemcpyHostToDevice, s));
  dim3 grid((ns + 255) / 256, ntr);
  nmo_correct<<<grid, 256, 0, s>>>(d_traces.get(), ntr, ns, velocity.get(), d_out.get());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_out.get(), d_out.get(), samples * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));

  double energy = 0;
  for (size_t i = 0; i < samples; ++i) energy += double(h_out.get()[i]) * h_out.get()[i];
  std::snprintf(report.get(), 256, "NMO gather energy %.3f", energy);
  std::puts(report.get());

  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;  // owners release in reverse order: all work was synchronized above
}

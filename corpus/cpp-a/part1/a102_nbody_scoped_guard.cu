// case: N-body integrator; centre-of-mass readback goes into pinned memory inside a block whose RAII guard synchronizes the stream in its destructor, so the host reads after the sync (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n",                          \
                   cudaGetErrorString(err_), __FILE__, __LINE__);               \
      std::abort();                                                             \
    }                                                                           \
  } while (0)

// Waits for everything queued on the stream when the scope ends, whichever
// way the scope is left.
class StreamSyncGuard {
 public:
  explicit StreamSyncGuard(cudaStream_t s) : s_(s) {}
  ~StreamSyncGuard() { cudaStreamSynchronize(s_); }
  StreamSyncGuard(const StreamSyncGuard&) = delete;
  StreamSyncGuard& operator=(const StreamSyncGuard&) = delete;

 private:
  cudaStream_t s_;
};

__global__ void accelerate(const float4* pos, float4* vel, int n, float dt, float eps2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 pi = pos[i];
  float3 acc = make_float3(0.f, 0.f, 0.f);
  for (int j = 0; j < n; ++j) {
    float4 pj = pos[j];
    float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
    float inv = rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
    float s = pj.w * inv * inv * inv;
    acc.x += dx * s; acc.y += dy * s; acc.z += dz * s;
  }
  float4 v = vel[i];
  v.x += acc.x * dt; v.y += acc.y * dt; v.z += acc.z * dt;
  vel[i] = v;
}

__global__ void drift(float4* pos, const float4* vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i];
  float4 v = vel[i];
  pos[i] = make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
}

class NBodySystem {
 public:
  explicit NBodySystem(int n) : n_(n) {
    CUDA_CHECK(cudaStreamCreate(&stream_));
    CUDA_CHECK(cudaMalloc(&d_pos_, n_ * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_vel_, n_ * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost(&h_pos_, n_ * sizeof(float4)));
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (int i = 0; i < n_; ++i) h_pos_[i] = make_float4(u(rng), u(rng), u(rng), 1.f / n_);
    CUDA_CHECK(cudaMemcpyAsync(d_pos_, h_pos_, n_ * sizeof(float4), cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemsetAsync(d_vel_, 0, n_ * sizeof(float4), stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  ~NBodySystem() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(h_pos_);
    cudaFree(d_vel_);
    cudaFree(d_pos_);
    cudaStreamDestroy(stream_);
  }

  void step(float dt) {
    accelerate<<<(n_ + 127) / 128, 128, 0, stream_>>>(d_pos_, d_vel_, n_, dt, 1e-4f);
    drift<<<(n_ + 127) / 128, 128, 0, stream_>>>(d_pos_, d_vel_, n_, dt);
    CUDA_CHECK(cudaGetLastError());
  }

  double center_of_mass_x() {
    {
      StreamSyncGuard guard(stream_);
      CUDA_CHECK(cudaMemcpyAsync(h_pos_, d_pos_, n_ * sizeof(float4), cudaMemcpyDeviceToHost, stream_));
    }  // guard's destructor has waited for the copy here
    double cx = 0.0, m = 0.0;
    for (int i = 0; i < n_; ++i) {
      cx += static_cast<double>(h_pos_[i].x) * h_pos_[i].w;
      m += h_pos_[i].w;
    }
    return m > 0.0 ? cx / m : 0.0;
  }

 private:
  int n_;
  cudaStream_t stream_ = nullptr;
  float4* d_pos_ = nullptr;
  float4* d_vel_ = nullptr;
  float4* h_pos_ = nullptr;
};

int main() {
  NBodySystem sys(16384);
  for (int it = 0; it < 100; ++it) {
    sys.step(1e-3f);
    if (it % 10 == 0) std::printf("it %d com.x = %.6f\n", it, sys.center_of_mass_x());
  }
  return 0;
}

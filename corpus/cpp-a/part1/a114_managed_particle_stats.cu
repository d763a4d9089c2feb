// case: SPH-like particle step loop; a managed StepStats struct (cudaMallocManaged, global attach) is only used by the host, which writes it right after launching the density kernel (on other buffers) and before the stream is synchronized
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "sph: %s (%s)\n", #call, cudaGetErrorString(e_));    \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct StepStats {
  int step;
  double wall_ms;
  double sim_time;
};

__global__ void density(const float4* __restrict__ pos, float* __restrict__ rho, int n, float h2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i];
  float sum = 0.f;
  for (int j = 0; j < n; ++j) {
    float dx = pos[j].x - p.x, dy = pos[j].y - p.y, dz = pos[j].z - p.z;
    float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < h2) {
      float q = h2 - r2;
      sum += pos[j].w * q * q * q;
    }
  }
  rho[i] = sum;
}

class SphSolver {
 public:
  explicit SphSolver(int n) : n_(n) {
    CUDA_CHECK(cudaStreamCreate(&stream_));
    CUDA_CHECK(cudaMalloc(&d_pos_, n_ * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_rho_, n_ * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_pos_, 0, n_ * sizeof(float4), stream_));
    CUDA_CHECK(cudaMallocManaged(&stats_, sizeof(StepStats)));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    stats_->step = 0;
    stats_->wall_ms = 0.0;
    stats_->sim_time = 0.0;
  }

  ~SphSolver() {
    cudaStreamSynchronize(stream_);
    cudaFree(stats_);
    cudaFree(d_rho_);
    cudaFree(d_pos_);
    cudaStreamDestroy(stream_);
  }

  void run(int steps, float dt) {
    for (int s = 0; s < steps; ++s) {
      auto t0 = std::chrono::steady_clock::now();
      density<<<(n_ + 127) / 128, 128, 0, stream_>>>(d_pos_, d_rho_, n_, 0.01f);
      this->stats_->step = s;  // EXPECT: managed_concurrent_access
      this->stats_->sim_time += dt;
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      auto t1 = std::chrono::steady_clock::now();
      this->stats_->wall_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    }
  }

  const StepStats& stats() const { return *stats_; }

 private:
  int n_;
  cudaStream_t stream_ = nullptr;
  float4* d_pos_ = nullptr;
  float* d_rho_ = nullptr;
  StepStats* stats_ = nullptr;
};

int main() {
  SphSolver solver(1 << 15);
  solver.run(200, 1e-3f);
  const StepStats& st = solver.stats();
  std::printf("%d steps, %.1f ms, t=%.3f\n", st.step + 1, st.wall_ms, st.sim_time);
  return 0;
}

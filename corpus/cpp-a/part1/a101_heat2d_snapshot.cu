// case: 2-D heat solver class; run() rewrites the pinned boundary buffer while the previous step's upload may still read it, and reads the pinned snapshot right after its async readback (no sync until the loop ends)
// expect: missing_sync=2
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
                   cudaGetErrorString(err_));                                   \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)

__global__ void apply_boundary(float* T, const float* bc, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx) {
    T[i] = bc[i];
    T[(ny - 1) * nx + i] = bc[nx + i];
  }
}

__global__ void jacobi_step(const float* Tin, float* Tout, int nx, int ny, float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int c = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    Tout[c] = Tin[c];
    return;
  }
  Tout[c] = Tin[c] + alpha * (Tin[c - 1] + Tin[c + 1] + Tin[c - nx] + Tin[c + nx] - 4.f * Tin[c]);
}

class HeatSolver2D {
 public:
  HeatSolver2D(int nx, int ny, float alpha) : nx_(nx), ny_(ny), alpha_(alpha) {
    const size_t cells = static_cast<size_t>(nx) * ny;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_a_, cells * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b_, cells * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_bc_, 2 * nx * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_field_, cells * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_bc_, 2 * nx * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_a_, 0, cells * sizeof(float), stream_));
    CUDA_CHECK(cudaMemsetAsync(d_b_, 0, cells * sizeof(float), stream_));
  }

  ~HeatSolver2D() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_a_);
    cudaFree(d_b_);
    cudaFree(d_bc_);
    cudaFreeHost(h_field_);
    cudaFreeHost(h_bc_);
    cudaStreamDestroy(stream_);
  }

  HeatSolver2D(const HeatSolver2D&) = delete;
  HeatSolver2D& operator=(const HeatSolver2D&) = delete;

  // Ramps the top wall temperature up over the run and returns the hottest
  // interior value seen in the snapshots.
  float run(int steps, int snapshot_every) {
    const size_t cells = static_cast<size_t>(nx_) * ny_;
    dim3 block(16, 16);
    dim3 grid((nx_ + block.x - 1) / block.x, (ny_ + block.y - 1) / block.y);
    float peak = 0.f;
    for (int s = 0; s < steps; ++s) {
      const float ramp = 100.f * static_cast<float>(s) / static_cast<float>(steps);
      for (int i = 0; i < nx_; ++i) { this->h_bc_[i] = ramp; this->h_bc_[nx_ + i] = 0.f; }  // EXPECT: missing_sync
      CUDA_CHECK(cudaMemcpyAsync(d_bc_, h_bc_, 2 * nx_ * sizeof(float), cudaMemcpyHostToDevice, stream_));
      apply_boundary<<<(nx_ + 255) / 256, 256, 0, stream_>>>(d_a_, d_bc_, nx_, ny_);
      jacobi_step<<<grid, block, 0, stream_>>>(d_a_, d_b_, nx_, ny_, alpha_);
      std::swap(d_a_, d_b_);

      if (s % snapshot_every == 0) {
        CUDA_CHECK(cudaMemcpyAsync(this->h_field_, d_a_, cells * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        for (size_t c = static_cast<size_t>(nx_); c < cells - nx_; ++c) peak = std::max(peak, this->h_field_[c]);  // EXPECT: missing_sync
        std::printf("step %d: peak %.3f\n", s, peak);
      }
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return peak;
  }

 private:
  int nx_, ny_;
  float alpha_;
  cudaStream_t stream_ = nullptr;
  float* d_a_ = nullptr;
  float* d_b_ = nullptr;
  float* d_bc_ = nullptr;
  float* h_field_ = nullptr;
  float* h_bc_ = nullptr;
};

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  HeatSolver2D solver(n, n, 0.2f);
  float peak = solver.run(2000, 250);
  std::printf("final peak %.3f\n", peak);
  return 0;
}

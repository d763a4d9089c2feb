// case: particle tracker page-locks a std::vector with cudaHostRegister and reads it back with cudaMemcpyAsync; registered memory is pinned, so the copy really is asynchronous and the centroid loop reads the vector before the stream is synchronized
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "tracker: %s:%d %s\n", __FILE__, __LINE__,           \
                   cudaGetErrorString(e_));                                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void advance(float2* pos, const float2* vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  pos[i].x += vel[i].x * dt;
  pos[i].y += vel[i].y * dt;
}

__global__ void init_particles(float2* pos, float2* vel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  pos[i] = make_float2(float(i % 1024), float(i / 1024));
  vel[i] = make_float2(0.5f, -0.25f);
}

class Tracker {
 public:
  explicit Tracker(int n) : n_(n), positions_(n) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_pos_, n_ * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&d_vel_, n_ * sizeof(float2)));
    CUDA_CHECK(cudaHostRegister(positions_.data(), positions_.size() * sizeof(float2), cudaHostRegisterDefault));
    init_particles<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_pos_, d_vel_, n_);
  }

  ~Tracker() {
    cudaStreamSynchronize(stream_);
    cudaHostUnregister(positions_.data());
    cudaFree(d_vel_);
    cudaFree(d_pos_);
    cudaStreamDestroy(stream_);
  }

  float2 step_and_centroid(float dt) {
    advance<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_pos_, d_vel_, n_, dt);
    CUDA_CHECK(cudaMemcpyAsync(positions_.data(), d_pos_, n_ * sizeof(float2), cudaMemcpyDeviceToHost, stream_));
    double cx = 0.0, cy = 0.0;
    for (const float2& p : positions_) { cx += p.x; cy += p.y; }  // EXPECT: missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return make_float2(float(cx / n_), float(cy / n_));
  }

 private:
  int n_;
  std::vector<float2> positions_;
  cudaStream_t stream_ = nullptr;
  float2* d_pos_ = nullptr;
  float2* d_vel_ = nullptr;
};

int main() {
  Tracker tracker(1 << 20);
  for (int s = 0; s < 20; ++s) {
    float2 c = tracker.step_and_centroid(0.1f);
    std::printf("step %d centroid (%.3f, %.3f)\n", s, c.x, c.y);
  }
  return 0;
}

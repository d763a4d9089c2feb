// Foliage/particle wind for a game engine. The level owns a pinned wind table for its whole
// lifetime; the substep graph re-uploads it at every launch, so gusts are applied by rewriting
// the table between frames, once the frame's launches are known to be done.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(expr)                                                           \
  do {                                                                             \
    const cudaError_t status_ = (expr);                                            \
    if (status_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "[physics] %s -> %s\n", #expr, cudaGetErrorString(status_)); \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

constexpr int kWindRes = 48;
constexpr int kWindCells = kWindRes * kWindRes * kWindRes;
constexpr size_t kWindBytes = sizeof(float) * 4 * kWindCells;
constexpr int kParticles = 150000;
constexpr float kWorldSize = 24.0f;

__global__ void advect_in_wind(float* pos, float* vel, const float* wind, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float cell = kWindRes / kWorldSize;
  int cx = min(max(int(pos[3 * i + 0] * cell), 0), kWindRes - 1);
  int cy = min(max(int(pos[3 * i + 1] * cell), 0), kWindRes - 1);
  int cz = min(max(int(pos[3 * i + 2] * cell), 0), kWindRes - 1);
  const float* w = wind + 4 * ((cz * kWindRes + cy) * kWindRes + cx);
  for (int c = 0; c < 3; ++c) {
    vel[3 * i + c] += dt * (w[c] - vel[3 * i + c]) * (1.0f + w[3]);
    pos[3 * i + c] += dt * vel[3 * i + c];
  }
}

__global__ void clamp_to_world(float* pos, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 3 * n) return;
  pos[i] = fminf(fmaxf(pos[i], 0.0f), kWorldSize);
}

// Pinned wind table owned by the level.
class WindTable {
 public:
  WindTable() { CHECK_CUDA(cudaMallocHost(&host_, kWindBytes)); }
  ~WindTable() { CHECK_CUDA(cudaFreeHost(host_)); }
  WindTable(const WindTable&) = delete;
  WindTable& operator=(const WindTable&) = delete;

  void bake(float gust, float phase) {
    for (int z = 0; z < kWindRes; ++z)
      for (int y = 0; y < kWindRes; ++y)
        for (int x = 0; x < kWindRes; ++x) {
          float* w = host_ + 4 * ((z * kWindRes + y) * kWindRes + x);
          w[0] = gust * std::sin(0.1f * y + phase);
          w[1] = 0.02f * std::cos(0.3f * x);
          w[2] = 0.25f * gust;
          w[3] = 0.05f * ((x + z) & 3);
        }
  }
  const float* data() const { return host_; }

 private:
  float* host_ = nullptr;
};

int main() {
  const int n = kParticles;
  const size_t bytes = 3 * sizeof(float) * n;
  float *d_pos = nullptr, *d_vel = nullptr, *d_wind = nullptr;
  CHECK_CUDA(cudaMalloc(&d_pos, bytes));
  CHECK_CUDA(cudaMalloc(&d_vel, bytes));
  CHECK_CUDA(cudaMalloc(&d_wind, kWindBytes));

  std::vector<float> seed(3 * n);
  for (int i = 0; i < 3 * n; ++i) seed[i] = std::fmod(i * 0.7548776f, kWorldSize);
  CHECK_CUDA(cudaMemcpy(d_pos, seed.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_vel, 0, bytes));

  cudaStream_t sim;
  CHECK_CUDA(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));

  WindTable wind;
  wind.bake(1.0f, 0.0f);

  const int block = 256;
  const int substeps = 2;
  const float dt = 1.0f / (60.0f * substeps);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t step = nullptr;
  CHECK_CUDA(cudaStreamBeginCapture(sim, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaMemcpyAsync(d_wind, wind.data(), kWindBytes, cudaMemcpyHostToDevice, sim));
  advect_in_wind<<<(n + block - 1) / block, block, 0, sim>>>(d_pos, d_vel, d_wind, n, dt);
  clamp_to_world<<<(3 * n + block - 1) / block, block, 0, sim>>>(d_pos, n);
  CHECK_CUDA(cudaStreamEndCapture(sim, &graph));
  CHECK_CUDA(cudaGraphInstantiate(&step, graph, 0));
  CHECK_CUDA(cudaGraphDestroy(graph));

  float* h_pos = nullptr;
  CHECK_CUDA(cudaMallocHost(&h_pos, bytes));
  for (int frame = 0; frame < 300; ++frame) {
    for (int s = 0; s < substeps; ++s) CHECK_CUDA(cudaGraphLaunch(step, sim));
    CHECK_CUDA(cudaMemcpyAsync(h_pos, d_pos, bytes, cudaMemcpyDeviceToHost, sim));
    CHECK_CUDA(cudaStreamSynchronize(sim));  // the frame's launches no longer read the table

    if (frame % 50 == 49) {
      wind.bake(1.0f + 0.5f * std::sin(frame * 0.01f), frame * 0.1f);  // gust for the next frames
    }
    if (frame % 100 == 0) std::printf("frame %d: p0 = (%.2f, %.2f, %.2f)\n", frame, h_pos[0], h_pos[1], h_pos[2]);
  }

  CHECK_CUDA(cudaGraphExecDestroy(step));
  CHECK_CUDA(cudaFreeHost(h_pos));
  CHECK_CUDA(cudaFree(d_wind));
  CHECK_CUDA(cudaFree(d_vel));
  CHECK_CUDA(cudaFree(d_pos));
  CHECK_CUDA(cudaStreamDestroy(sim));
  return 0;  // `wind` releases its pinned table here, long after the last launch was waited for
}

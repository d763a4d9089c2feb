// Foliage/particle wind for a game engine. The wind field is baked on the host per level into a
// pinned staging table; the substep graph copies it to the device at the start of each substep
// (so that a level designer's live edits of the table reach the simulation) and then advects
// the particles. build_substep_graph() frees its staging table once the graph is made, as if the
// copy had already happened: capture ran nothing, and every launch copies from the table again.
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

constexpr int kWindRes = 64;                        // 64^3 cells of float4 (vx, vy, vz, turbulence)
constexpr int kWindCells = kWindRes * kWindRes * kWindRes;
constexpr size_t kWindBytes = sizeof(float) * 4 * kWindCells;  // 4 MiB
constexpr int kParticles = 200000;
constexpr float kWorldSize = 32.0f;

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

__global__ void wrap_world(float* pos, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 3 * n) return;
  float p = pos[i];
  if (p < 0.0f) p += kWorldSize;
  if (p >= kWorldSize) p -= kWorldSize;
  pos[i] = p;
}

struct Particles {
  float* d_pos = nullptr;
  float* d_vel = nullptr;
  float* d_wind = nullptr;
  int n = 0;
};

static void bake_wind(float* table, float gust) {
  for (int z = 0; z < kWindRes; ++z)
    for (int y = 0; y < kWindRes; ++y)
      for (int x = 0; x < kWindRes; ++x) {
        float* w = table + 4 * ((z * kWindRes + y) * kWindRes + x);
        w[0] = gust * std::sin(0.1f * y);
        w[1] = 0.05f * std::cos(0.2f * x);
        w[2] = 0.5f * gust;
        w[3] = 0.1f * ((x ^ y ^ z) & 7);
      }
}

// Builds the graph of one substep. The staging table is needed "only for the upload".
static cudaGraphExec_t build_substep_graph(const Particles& p, cudaStream_t s, float gust, float dt) {
  float* h_wind = nullptr;
  CHECK_CUDA(cudaMallocHost(&h_wind, kWindBytes));
  bake_wind(h_wind, gust);

  const int block = 256;
  cudaGraph_t graph = nullptr;
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaMemcpyAsync(p.d_wind, h_wind, kWindBytes, cudaMemcpyHostToDevice, s));
  advect_in_wind<<<(p.n + block - 1) / block, block, 0, s>>>(p.d_pos, p.d_vel, p.d_wind, p.n, dt);
  wrap_world<<<(3 * p.n + block - 1) / block, block, 0, s>>>(p.d_pos, p.n);
  CHECK_CUDA(cudaStreamEndCapture(s, &graph));

  cudaGraphExec_t exec = nullptr;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaFreeHost(h_wind));
  return exec;
}

int main() {
  Particles p;
  p.n = kParticles;
  const size_t bytes = 3 * sizeof(float) * p.n;
  CHECK_CUDA(cudaMalloc(&p.d_pos, bytes));
  CHECK_CUDA(cudaMalloc(&p.d_vel, bytes));
  CHECK_CUDA(cudaMalloc(&p.d_wind, kWindBytes));

  std::vector<float> seed(3 * p.n);
  for (int i = 0; i < 3 * p.n; ++i) seed[i] = std::fmod(i * 0.6180339f, kWorldSize);
  CHECK_CUDA(cudaMemcpy(p.d_pos, seed.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(p.d_vel, 0, bytes));

  cudaStream_t sim;
  CHECK_CUDA(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));
  const int substeps = 2;
  cudaGraphExec_t step = build_substep_graph(p, sim, 1.5f, 1.0f / (60.0f * substeps));

  float* h_pos = nullptr;
  CHECK_CUDA(cudaMallocHost(&h_pos, bytes));
  for (int frame = 0; frame < 300; ++frame) {
    for (int s = 0; s < substeps; ++s) {
      CHECK_CUDA(cudaGraphLaunch(step, sim));  // EXPECT: graph_uses_freed_memory
    }
    if (frame % 100 == 99) {
      CHECK_CUDA(cudaMemcpyAsync(h_pos, p.d_pos, bytes, cudaMemcpyDeviceToHost, sim));
      CHECK_CUDA(cudaStreamSynchronize(sim));
      std::printf("frame %d: particle 0 at (%.2f, %.2f, %.2f)\n", frame, h_pos[0], h_pos[1], h_pos[2]);
    }
  }

  CHECK_CUDA(cudaStreamSynchronize(sim));
  CHECK_CUDA(cudaGraphExecDestroy(step));
  CHECK_CUDA(cudaFreeHost(h_pos));
  CHECK_CUDA(cudaFree(p.d_wind));
  CHECK_CUDA(cudaFree(p.d_vel));
  CHECK_CUDA(cudaFree(p.d_pos));
  CHECK_CUDA(cudaStreamDestroy(sim));
  return 0;
}

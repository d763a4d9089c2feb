// SPH fluid step of a physics engine captured as one fork/join graph on streams the caller owns:
// the uniform-grid build (cell hashing, cell start table) forks onto a second stream while the
// main stream applies gravity and the boundary forces, and the two join before the density and
// pressure passes. Dependencies inside the step are expressed with events only; the host waits
// for the main stream after replaying the graph.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "sph: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

constexpr int kParticles = 32768;
constexpr int kGridDim = 32;
constexpr int kCells = kGridDim * kGridDim * kGridDim;
constexpr float kH = 1.0f / kGridDim;  // smoothing length = cell size, domain is the unit cube

__device__ inline int cell_of(const float* p) {
  int x = min(max(int(p[0] / kH), 0), kGridDim - 1);
  int y = min(max(int(p[1] / kH), 0), kGridDim - 1);
  int z = min(max(int(p[2] / kH), 0), kGridDim - 1);
  return (z * kGridDim + y) * kGridDim + x;
}

__global__ void count_cells(const float* pos, int* cell_count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&cell_count[cell_of(pos + 3 * i)], 1);
}

__global__ void external_forces(const float* pos, float* force, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  force[3 * i + 0] = pos[3 * i + 0] < kH ? 50.0f : (pos[3 * i + 0] > 1.0f - kH ? -50.0f : 0.0f);
  force[3 * i + 1] = -9.81f + (pos[3 * i + 1] < kH ? 80.0f : 0.0f);
  force[3 * i + 2] = pos[3 * i + 2] < kH ? 50.0f : (pos[3 * i + 2] > 1.0f - kH ? -50.0f : 0.0f);
}

// Density estimate from the particle count of the cell (a cheap stand-in for the neighbour sum).
__global__ void density_pressure(const float* pos, const int* cell_count, float* pressure, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float rho = cell_count[cell_of(pos + 3 * i)] / (kH * kH * kH);
  pressure[i] = fmaxf(0.0f, 1e-4f * (rho - 8.0f / (kH * kH * kH)));
}

__global__ void integrate(float* pos, float* vel, const float* force, const float* pressure, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) {
    vel[3 * i + c] += dt * (force[3 * i + c] - pressure[i] * (pos[3 * i + c] - 0.5f));
    pos[3 * i + c] = fminf(fmaxf(pos[3 * i + c] + dt * vel[3 * i + c], 0.0f), 1.0f);
  }
}

struct Fluid {
  float *pos, *vel, *force, *pressure;
  int* cell_count;
};

static cudaGraphExec_t capture_sph_step(cudaStream_t sim, cudaStream_t grid_stream, const Fluid& f,
                                        cudaEvent_t fork, cudaEvent_t grid_ready, float dt) {
  const int blocks = (kParticles + 255) / 256;
  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamBeginCapture(sim, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaEventRecord(fork, sim));
  CUDA_CHECK(cudaStreamWaitEvent(grid_stream, fork, 0));

  CUDA_CHECK(cudaMemsetAsync(f.cell_count, 0, kCells * sizeof(int), grid_stream));
  count_cells<<<blocks, 256, 0, grid_stream>>>(f.pos, f.cell_count, kParticles);
  CUDA_CHECK(cudaEventRecord(grid_ready, grid_stream));

  external_forces<<<blocks, 256, 0, sim>>>(f.pos, f.force, kParticles);
  CUDA_CHECK(cudaStreamWaitEvent(sim, grid_ready, 0));  // join
  density_pressure<<<blocks, 256, 0, sim>>>(f.pos, f.cell_count, f.pressure, kParticles);
  integrate<<<blocks, 256, 0, sim>>>(f.pos, f.vel, f.force, f.pressure, kParticles, dt);
  CUDA_CHECK(cudaStreamEndCapture(sim, &graph));

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphDestroy(graph));
  return exec;
}

int main() {
  std::vector<float> pos(3 * kParticles);
  for (int i = 0; i < kParticles; ++i) {
    pos[3 * i + 0] = 0.1f + 0.4f * ((i * 37) % 1000) / 1000.0f;
    pos[3 * i + 1] = 0.2f + 0.6f * ((i * 91) % 1000) / 1000.0f;
    pos[3 * i + 2] = 0.1f + 0.4f * ((i * 53) % 1000) / 1000.0f;
  }
  Fluid f;
  const size_t vec_bytes = pos.size() * sizeof(float);
  CUDA_CHECK(cudaMalloc(&f.pos, vec_bytes));
  CUDA_CHECK(cudaMalloc(&f.vel, vec_bytes));
  CUDA_CHECK(cudaMalloc(&f.force, vec_bytes));
  CUDA_CHECK(cudaMalloc(&f.pressure, kParticles * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&f.cell_count, kCells * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(f.pos, pos.data(), vec_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(f.vel, 0, vec_bytes));

  cudaStream_t sim, grid_stream;
  cudaEvent_t fork, grid_ready;
  CUDA_CHECK(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&grid_stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&grid_ready, cudaEventDisableTiming));

  cudaGraphExec_t step = capture_sph_step(sim, grid_stream, f, fork, grid_ready, 1e-3f);

  float* h_pos = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_pos, vec_bytes));
  for (int frame = 0; frame < 60; ++frame) {
    for (int k = 0; k < 8; ++k) CUDA_CHECK(cudaGraphLaunch(step, sim));
    CUDA_CHECK(cudaMemcpyAsync(h_pos, f.pos, vec_bytes, cudaMemcpyDeviceToHost, sim));
    CUDA_CHECK(cudaStreamSynchronize(sim));
    if (frame % 20 == 0) {
      double h = 0.0;
      for (int i = 0; i < kParticles; ++i) h += h_pos[3 * i + 1];
      std::printf("frame %d: mean height %.4f\n", frame, h / kParticles);
    }
  }

  CUDA_CHECK(cudaGraphExecDestroy(step));
  CUDA_CHECK(cudaFreeHost(h_pos));
  CUDA_CHECK(cudaFree(f.cell_count));
  CUDA_CHECK(cudaFree(f.pressure));
  CUDA_CHECK(cudaFree(f.force));
  CUDA_CHECK(cudaFree(f.vel));
  CUDA_CHECK(cudaFree(f.pos));
  CUDA_CHECK(cudaEventDestroy(grid_ready));
  CUDA_CHECK(cudaEventDestroy(fork));
  CUDA_CHECK(cudaStreamDestroy(grid_stream));
  CUDA_CHECK(cudaStreamDestroy(sim));
  return 0;
}

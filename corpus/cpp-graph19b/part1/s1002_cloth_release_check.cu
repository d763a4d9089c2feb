// Cloth solver (position-based dynamics) for a game engine: one substep, made of a predict pass
// and a few Jacobi passes over the distance constraints, is captured once and replayed several
// times per frame. The kernel-check macro waits for the device only in developer builds; this
// file is the shipping build, where it checks the launch status alone.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CLOTH_DEBUG_SYNC 0  // shipping build

#define CUDA_CHECK(call)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "cloth: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                   cudaGetErrorString(err_));                                            \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

#if CLOTH_DEBUG_SYNC
#define KERNEL_CHECK()                   \
  do {                                   \
    CUDA_CHECK(cudaGetLastError());      \
    CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)
#else
#define KERNEL_CHECK() CUDA_CHECK(cudaGetLastError())
#endif

constexpr int kGridW = 256;
constexpr int kGridH = 256;
constexpr int kVerts = kGridW * kGridH;
constexpr int kJacobiIters = 8;
constexpr int kSubsteps = 3;
constexpr int kBlock = 128;

__global__ void predict(float* x, float* x_prev, const float* w, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || w[i] == 0.0f) return;
  float y = x[3 * i + 1];
  float vy = (y - x_prev[3 * i + 1]) / dt - 9.81f * dt;
  x_prev[3 * i + 1] = y;
  x[3 * i + 1] = y + vy * dt;
}

// Each vertex relaxes toward its right and lower neighbour at rest length `rest`.
__global__ void jacobi_distance(const float* x_in, float* x_out, const float* w, float rest,
                                int width, int height) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= width * height) return;
  float px = x_in[3 * i], py = x_in[3 * i + 1], pz = x_in[3 * i + 2];
  float dx = 0.0f, dy = 0.0f, dz = 0.0f;
  int col = i % width, row = i / width;
  int nbr[2] = {col + 1 < width ? i + 1 : -1, row + 1 < height ? i + width : -1};
  for (int k = 0; k < 2; ++k) {
    int j = nbr[k];
    if (j < 0) continue;
    float ex = x_in[3 * j] - px, ey = x_in[3 * j + 1] - py, ez = x_in[3 * j + 2] - pz;
    float len = sqrtf(ex * ex + ey * ey + ez * ez) + 1e-7f;
    float c = 0.5f * (len - rest) / len;
    dx += c * ex; dy += c * ey; dz += c * ez;
  }
  float wi = w[i] > 0.0f ? 1.0f : 0.0f;
  x_out[3 * i] = px + wi * dx;
  x_out[3 * i + 1] = py + wi * dy;
  x_out[3 * i + 2] = pz + wi * dz;
}

struct ClothState {
  float* x = nullptr;
  float* x_tmp = nullptr;
  float* x_prev = nullptr;
  float* w = nullptr;
};

static void record_substep(const ClothState& c, cudaStream_t s, float dt, float rest) {
  const int grid = (kVerts + kBlock - 1) / kBlock;
  predict<<<grid, kBlock, 0, s>>>(c.x, c.x_prev, c.w, dt, kVerts);
  KERNEL_CHECK();
  for (int it = 0; it < kJacobiIters; it += 2) {
    jacobi_distance<<<grid, kBlock, 0, s>>>(c.x, c.x_tmp, c.w, rest, kGridW, kGridH);
    jacobi_distance<<<grid, kBlock, 0, s>>>(c.x_tmp, c.x, c.w, rest, kGridW, kGridH);
  }
  KERNEL_CHECK();
}

int main() {
  const float rest = 0.01f;
  const float dt = 1.0f / (60.0f * kSubsteps);
  const size_t bytes = 3 * sizeof(float) * kVerts;

  std::vector<float> x0(3 * kVerts), w0(kVerts, 1.0f);
  for (int i = 0; i < kVerts; ++i) {
    x0[3 * i] = (i % kGridW) * rest;
    x0[3 * i + 1] = 1.0f;
    x0[3 * i + 2] = (i / kGridW) * rest;
  }
  w0[0] = 0.0f;           // two pinned corners
  w0[kGridW - 1] = 0.0f;

  ClothState c;
  CUDA_CHECK(cudaMalloc(&c.x, bytes));
  CUDA_CHECK(cudaMalloc(&c.x_tmp, bytes));
  CUDA_CHECK(cudaMalloc(&c.x_prev, bytes));
  CUDA_CHECK(cudaMalloc(&c.w, sizeof(float) * kVerts));
  CUDA_CHECK(cudaMemcpy(c.x, x0.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(c.x_prev, x0.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(c.w, w0.data(), sizeof(float) * kVerts, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(c.x_tmp, 0, bytes));

  cudaStream_t sim;
  CUDA_CHECK(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(sim, cudaStreamCaptureModeGlobal));
  record_substep(c, sim, dt, rest);
  CUDA_CHECK(cudaStreamEndCapture(sim, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaDeviceSynchronize());  // capture is over: waiting here is allowed

  float* h_x = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_x, bytes));
  for (int frame = 0; frame < 120; ++frame) {
    for (int s = 0; s < kSubsteps; ++s) CUDA_CHECK(cudaGraphLaunch(exec, sim));
    CUDA_CHECK(cudaMemcpyAsync(h_x, c.x, bytes, cudaMemcpyDeviceToHost, sim));
    CUDA_CHECK(cudaStreamSynchronize(sim));
    if (frame % 30 == 0) {
      const float* mid = h_x + 3 * (kVerts / 2 + kGridW / 2);
      std::printf("frame %3d: centre at (%.3f, %.3f, %.3f)\n", frame, mid[0], mid[1], mid[2]);
    }
  }

  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaFree(c.w));
  CUDA_CHECK(cudaFree(c.x_prev));
  CUDA_CHECK(cudaFree(c.x_tmp));
  CUDA_CHECK(cudaFree(c.x));
  CUDA_CHECK(cudaStreamDestroy(sim));
  return 0;
}

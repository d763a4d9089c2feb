// Rigid-particle simulation feeding a renderer through a copy stream. Each frame: the substep
// graph is replayed on the simulation stream, an event recorded behind the replays orders the
// copy stream's readback after them, and a second event recorded behind the readback keeps the
// next frame's replays from overwriting the positions before they are copied. The render thread
// waits for the readback's event before it touches the pinned positions.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

constexpr int kN = 1 << 17;
constexpr int kSubsteps = 4;

__global__ void gravity_and_drag(float* vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  vel[3 * i + 1] -= 9.81f * dt;
  for (int c = 0; c < 3; ++c) vel[3 * i + c] *= 0.999f;
}

__global__ void advance(float* pos, float* vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) pos[3 * i + c] += dt * vel[3 * i + c];
  if (pos[3 * i + 1] < 0.0f) {
    pos[3 * i + 1] = -pos[3 * i + 1];
    vel[3 * i + 1] = -0.6f * vel[3 * i + 1];
  }
}

static void render(const float* pos, int n, int frame) {
  if (frame % 30 != 0) return;
  double mean = 0.0;
  for (int i = 0; i < n; ++i) mean += pos[3 * i + 1];
  std::printf("frame %d: mean height %.4f\n", frame, mean / n);
}

int main() {
  const size_t bytes = 3 * sizeof(float) * kN;
  std::vector<float> init(3 * kN);
  for (int i = 0; i < kN; ++i) {
    init[3 * i] = (i % 512) * 0.01f;
    init[3 * i + 1] = 1.0f + (i / 512) * 0.01f;
    init[3 * i + 2] = 0.0f;
  }
  float *d_pos, *d_vel, *h_render;
  CUDA_CHECK(cudaMalloc(&d_pos, bytes));
  CUDA_CHECK(cudaMalloc(&d_vel, bytes));
  CUDA_CHECK(cudaMallocHost(&h_render, bytes));
  CUDA_CHECK(cudaMemcpy(d_pos, init.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_vel, 0, bytes));

  cudaStream_t sim, copy;
  cudaEvent_t sim_done, copy_done;
  CUDA_CHECK(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&sim_done, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&copy_done, cudaEventDisableTiming));

  const float dt = 1.0f / (60.0f * kSubsteps);
  const int blocks = (kN + 255) / 256;
  cudaGraph_t g;
  cudaGraphExec_t substep;
  CUDA_CHECK(cudaStreamBeginCapture(sim, cudaStreamCaptureModeGlobal));
  gravity_and_drag<<<blocks, 256, 0, sim>>>(d_vel, kN, dt);
  advance<<<blocks, 256, 0, sim>>>(d_pos, d_vel, kN, dt);
  CUDA_CHECK(cudaStreamEndCapture(sim, &g));
  CUDA_CHECK(cudaGraphInstantiate(&substep, g, 0));
  CUDA_CHECK(cudaGraphDestroy(g));

  for (int frame = 0; frame < 180; ++frame) {
    for (int k = 0; k < kSubsteps; ++k) CUDA_CHECK(cudaGraphLaunch(substep, sim));
    CUDA_CHECK(cudaEventRecord(sim_done, sim));

    CUDA_CHECK(cudaStreamWaitEvent(copy, sim_done, 0));
    CUDA_CHECK(cudaMemcpyAsync(h_render, d_pos, bytes, cudaMemcpyDeviceToHost, copy));
    CUDA_CHECK(cudaEventRecord(copy_done, copy));
    CUDA_CHECK(cudaStreamWaitEvent(sim, copy_done, 0));  // next frame's replays wait for the readback

    CUDA_CHECK(cudaEventSynchronize(copy_done));
    render(h_render, kN, frame);
  }

  CUDA_CHECK(cudaStreamSynchronize(sim));
  CUDA_CHECK(cudaStreamSynchronize(copy));
  CUDA_CHECK(cudaGraphExecDestroy(substep));
  CUDA_CHECK(cudaEventDestroy(copy_done));
  CUDA_CHECK(cudaEventDestroy(sim_done));
  CUDA_CHECK(cudaFreeHost(h_render));
  CUDA_CHECK(cudaFree(d_vel));
  CUDA_CHECK(cudaFree(d_pos));
  CUDA_CHECK(cudaStreamDestroy(copy));
  CUDA_CHECK(cudaStreamDestroy(sim));
  return 0;
}

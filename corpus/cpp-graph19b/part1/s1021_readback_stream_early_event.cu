// Rigid-particle simulation feeding a renderer: the substep graph runs on the simulation stream
// and a separate copy stream brings the positions back into pinned memory for the render thread,
// ordered behind the frame's simulation by an event. The event is recorded where the frame
// starts, before the substeps are launched, so the copy stream waits for nothing of this frame's
// work and copies the positions while the replays are still writing them.
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
  float lowest = pos[1];
  for (int i = 1; i < n; ++i) lowest = std::fmin(lowest, pos[3 * i + 1]);
  std::printf("frame %d: lowest particle at %.4f\n", frame, lowest);
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
  cudaEvent_t frame_ready;
  CUDA_CHECK(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&frame_ready, cudaEventDisableTiming));

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
    CUDA_CHECK(cudaEventRecord(frame_ready, sim));
    for (int k = 0; k < kSubsteps; ++k) CUDA_CHECK(cudaGraphLaunch(substep, sim));

    CUDA_CHECK(cudaStreamWaitEvent(copy, frame_ready, 0));
    CUDA_CHECK(cudaMemcpyAsync(h_render, d_pos, bytes, cudaMemcpyDeviceToHost, copy));  // EXPECT: missing_sync
    CUDA_CHECK(cudaStreamSynchronize(copy));
    render(h_render, kN, frame);
  }

  CUDA_CHECK(cudaStreamSynchronize(sim));
  CUDA_CHECK(cudaGraphExecDestroy(substep));
  CUDA_CHECK(cudaEventDestroy(frame_ready));
  CUDA_CHECK(cudaFreeHost(h_render));
  CUDA_CHECK(cudaFree(d_vel));
  CUDA_CHECK(cudaFree(d_pos));
  CUDA_CHECK(cudaStreamDestroy(copy));
  CUDA_CHECK(cudaStreamDestroy(sim));
  return 0;
}

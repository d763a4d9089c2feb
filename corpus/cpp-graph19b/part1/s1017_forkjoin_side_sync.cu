// Coupled cloth / rigid-body step of a physics engine, captured as one fork/join graph: the
// body forces are applied on the main simulation stream while the cloth-vs-body contact pass runs
// on a side stream that joined the capture, then the main stream applies the contact impulses
// and integrates the bodies. The step used to run eagerly, with a synchronize of the side stream so that
// the contacts were complete before the join; that synchronize was left in when the step moved
// into a graph, and the side stream is part of the capture at that point.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "physics: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

constexpr int kBodies = 1024;
constexpr int kClothVerts = 64 * 64;

// Gravity and air drag on the body velocities (the positions are left to integrate_bodies).
__global__ void body_forces(float* body_vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) body_vel[3 * i + c] *= 1.0f - 0.01f * dt;
  body_vel[3 * i + 1] -= 9.81f * dt;
}

__global__ void integrate_bodies(float* body_pos, const float* body_vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) body_pos[3 * i + c] += dt * body_vel[3 * i + c];
}

// Each cloth vertex tests the bodies (spheres of radius 0.1) and records the deepest contact.
__global__ void cloth_contacts(const float* cloth, const float* body_pos, int bodies, int verts,
                               float* impulse, int* hit_body) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= verts) return;
  float best = 0.0f;
  int who = -1;
  for (int b = 0; b < bodies; ++b) {
    float dx = cloth[3 * v] - body_pos[3 * b], dy = cloth[3 * v + 1] - body_pos[3 * b + 1],
          dz = cloth[3 * v + 2] - body_pos[3 * b + 2];
    float pen = 0.1f - sqrtf(dx * dx + dy * dy + dz * dz);
    if (pen > best) { best = pen; who = b; }
  }
  impulse[v] = best;
  hit_body[v] = who;
}

__global__ void couple(const float* impulse, const int* hit_body, float* body_vel, int verts) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= verts || hit_body[v] < 0) return;
  atomicAdd(&body_vel[3 * hit_body[v] + 1], 0.05f * impulse[v]);
}

struct Scene {
  float* body_pos;
  float* body_vel;
  float* cloth;
  float* impulse;
  int* hit_body;
};

// Captures one coupled step on `sim`, forking the contact pass onto `side`.
static cudaGraphExec_t capture_coupled_step(cudaStream_t sim, cudaStream_t side, const Scene& sc,
                                            cudaEvent_t fork, cudaEvent_t join, float dt) {
  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamBeginCapture(sim, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaEventRecord(fork, sim));
  CUDA_CHECK(cudaStreamWaitEvent(side, fork, 0));

  cloth_contacts<<<(kClothVerts + 127) / 128, 128, 0, side>>>(sc.cloth, sc.body_pos, kBodies, kClothVerts,
                                                               sc.impulse, sc.hit_body);
  body_forces<<<(kBodies + 127) / 128, 128, 0, sim>>>(sc.body_vel, kBodies, dt);
  CUDA_CHECK(cudaStreamSynchronize(side));  // EXPECT: uncapturable_call
  CUDA_CHECK(cudaEventRecord(join, side));
  CUDA_CHECK(cudaStreamWaitEvent(sim, join, 0));
  couple<<<(kClothVerts + 127) / 128, 128, 0, sim>>>(sc.impulse, sc.hit_body, sc.body_vel, kClothVerts);
  integrate_bodies<<<(kBodies + 127) / 128, 128, 0, sim>>>(sc.body_pos, sc.body_vel, kBodies, dt);
  CUDA_CHECK(cudaStreamEndCapture(sim, &graph));

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphDestroy(graph));
  return exec;
}

int main() {
  std::vector<float> body(3 * kBodies), cloth(3 * kClothVerts);
  for (int b = 0; b < kBodies; ++b) {
    body[3 * b] = (b % 32) * 0.2f;
    body[3 * b + 1] = 1.0f + (b / 32) * 0.2f;
    body[3 * b + 2] = 0.0f;
  }
  for (int v = 0; v < kClothVerts; ++v) {
    cloth[3 * v] = (v % 64) * 0.1f;
    cloth[3 * v + 1] = 0.5f;
    cloth[3 * v + 2] = (v / 64) * 0.1f - 3.2f;
  }

  Scene sc;
  CUDA_CHECK(cudaMalloc(&sc.body_pos, body.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&sc.body_vel, body.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&sc.cloth, cloth.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&sc.impulse, kClothVerts * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&sc.hit_body, kClothVerts * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(sc.body_pos, body.data(), body.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(sc.body_vel, 0, body.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(sc.cloth, cloth.data(), cloth.size() * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t sim, side;
  cudaEvent_t fork, join;
  CUDA_CHECK(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

  cudaGraphExec_t step = capture_coupled_step(sim, side, sc, fork, join, 1.0f / 120.0f);

  float* h_body = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_body, body.size() * sizeof(float)));
  for (int frame = 0; frame < 120; ++frame) {
    CUDA_CHECK(cudaGraphLaunch(step, sim));
    CUDA_CHECK(cudaGraphLaunch(step, sim));
  }
  CUDA_CHECK(cudaMemcpyAsync(h_body, sc.body_pos, body.size() * sizeof(float), cudaMemcpyDeviceToHost, sim));
  CUDA_CHECK(cudaStreamSynchronize(sim));
  std::printf("body 0 rests at y = %.3f\n", h_body[1]);

  CUDA_CHECK(cudaGraphExecDestroy(step));
  CUDA_CHECK(cudaFreeHost(h_body));
  CUDA_CHECK(cudaFree(sc.hit_body));
  CUDA_CHECK(cudaFree(sc.impulse));
  CUDA_CHECK(cudaFree(sc.cloth));
  CUDA_CHECK(cudaFree(sc.body_vel));
  CUDA_CHECK(cudaFree(sc.body_pos));
  CUDA_CHECK(cudaEventDestroy(join));
  CUDA_CHECK(cudaEventDestroy(fork));
  CUDA_CHECK(cudaStreamDestroy(side));
  CUDA_CHECK(cudaStreamDestroy(sim));
  return 0;
}

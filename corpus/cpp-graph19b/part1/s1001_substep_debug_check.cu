// Particle physics step for a small game engine: one solver substep is captured into a CUDA
// graph once and replayed kSubsteps times per rendered frame. The project's kernel-check macro
// waits for the device in developer builds, so that a faulting kernel is reported next to its
// launch; this file is a developer build.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define PHYS_DEBUG_SYNC 1  // developer build: every kernel check waits for the device

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(EXIT_FAILURE);                                                        \
    }                                                                                 \
  } while (0)

#if PHYS_DEBUG_SYNC
#define KERNEL_CHECK()                         \
  do {                                         \
    CUDA_CHECK(cudaGetLastError());            \
    CUDA_CHECK(cudaDeviceSynchronize());       \
  } while (0)
#else
#define KERNEL_CHECK() CUDA_CHECK(cudaGetLastError())
#endif

namespace {

constexpr int kParticles = 1 << 16;
constexpr int kSubsteps = 4;
constexpr int kFrames = 240;
constexpr float kFrameDt = 1.0f / 60.0f;
constexpr int kBlock = 256;

__global__ void accumulate_forces(float* force, const float* inv_mass, float gravity, float drag,
                                  const float* vel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float m = inv_mass[i] > 0.0f ? 1.0f / inv_mass[i] : 0.0f;
  force[3 * i + 0] = -drag * vel[3 * i + 0];
  force[3 * i + 1] = m * gravity - drag * vel[3 * i + 1];
  force[3 * i + 2] = -drag * vel[3 * i + 2];
}

__global__ void integrate(float* pos, float* vel, const float* force, const float* inv_mass,
                          float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) {
    vel[3 * i + c] += dt * inv_mass[i] * force[3 * i + c];
    pos[3 * i + c] += dt * vel[3 * i + c];
  }
}

__global__ void resolve_ground(float* pos, float* vel, float restitution, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (pos[3 * i + 1] < 0.0f) {
    pos[3 * i + 1] = 0.0f;
    vel[3 * i + 1] = -restitution * vel[3 * i + 1];
  }
}

class ParticleSolver {
 public:
  explicit ParticleSolver(int n) : n_(n) {
    const size_t vec_bytes = 3 * sizeof(float) * n_;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_pos_, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_vel_, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_force_, vec_bytes));
    CUDA_CHECK(cudaMalloc(&d_inv_mass_, sizeof(float) * n_));
    CUDA_CHECK(cudaMallocHost(&h_pos_, vec_bytes));
  }

  ~ParticleSolver() {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (exec_) CUDA_CHECK(cudaGraphExecDestroy(exec_));
    if (graph_) CUDA_CHECK(cudaGraphDestroy(graph_));
    CUDA_CHECK(cudaFreeHost(h_pos_));
    CUDA_CHECK(cudaFree(d_inv_mass_));
    CUDA_CHECK(cudaFree(d_force_));
    CUDA_CHECK(cudaFree(d_vel_));
    CUDA_CHECK(cudaFree(d_pos_));
    CUDA_CHECK(cudaStreamDestroy(stream_));
  }

  void upload_scene(const std::vector<float>& pos, const std::vector<float>& vel,
                    const std::vector<float>& inv_mass) {
    CUDA_CHECK(cudaMemcpy(d_pos_, pos.data(), pos.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vel_, vel.data(), vel.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_inv_mass_, inv_mass.data(), inv_mass.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
  }

  // Records one substep: forces, integration, ground contact.
  void capture_substep(float dt) {
    const int grid = (n_ + kBlock - 1) / kBlock;
    CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    accumulate_forces<<<grid, kBlock, 0, stream_>>>(d_force_, d_inv_mass_, -9.81f, 0.02f, d_vel_, n_);
    integrate<<<grid, kBlock, 0, stream_>>>(d_pos_, d_vel_, d_force_, d_inv_mass_, dt, n_);
    resolve_ground<<<grid, kBlock, 0, stream_>>>(d_pos_, d_vel_, 0.4f, n_);
    KERNEL_CHECK();  // EXPECT: uncapturable_call
    CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
    CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }

  // Runs one rendered frame and brings the positions back for the renderer.
  const float* step_frame() {
    for (int s = 0; s < kSubsteps; ++s) CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
    CUDA_CHECK(cudaMemcpyAsync(h_pos_, d_pos_, 3 * sizeof(float) * n_, cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return h_pos_;
  }

  int size() const { return n_; }

 private:
  int n_;
  cudaStream_t stream_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  float* d_pos_ = nullptr;
  float* d_vel_ = nullptr;
  float* d_force_ = nullptr;
  float* d_inv_mass_ = nullptr;
  float* h_pos_ = nullptr;
};

}  // namespace

int main() {
  std::vector<float> pos(3 * kParticles), vel(3 * kParticles, 0.0f), inv_mass(kParticles);
  for (int i = 0; i < kParticles; ++i) {
    pos[3 * i + 0] = static_cast<float>(i % 256) * 0.05f;
    pos[3 * i + 1] = 2.0f + static_cast<float>(i / 256) * 0.05f;
    pos[3 * i + 2] = 0.0f;
    inv_mass[i] = (i % 97 == 0) ? 0.0f : 1.0f;  // pinned anchors every 97th particle
  }

  ParticleSolver solver(kParticles);
  solver.upload_scene(pos, vel, inv_mass);
  solver.capture_substep(kFrameDt / kSubsteps);

  for (int frame = 0; frame < kFrames; ++frame) {
    const float* p = solver.step_frame();
    if (frame % 60 == 0) {
      double mean_height = 0.0;
      for (int i = 0; i < solver.size(); ++i) mean_height += p[3 * i + 1];
      std::printf("frame %d: mean height %.4f\n", frame, mean_height / solver.size());
    }
  }
  return 0;
}

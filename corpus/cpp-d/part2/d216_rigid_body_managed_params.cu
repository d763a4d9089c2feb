// case: a rigid-body solver keeps its tunables in a cudaMallocManaged struct; after the force kernel (which reads them) is synchronized it launches the integrate kernel (which does not use them) and updates the managed struct for the next substep while integrate may still be running.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct SolverParams {
  float gravity;
  float damping;
  float dt;
  int substep;
};

__global__ void apply_forces(const SolverParams* p, const float* mass, float* vel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) vel[i] = (vel[i] + p->gravity * p->dt) * (1.f - p->damping / mass[i]);
}

__global__ void integrate(float* pos, const float* vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pos[i] += vel[i] * dt;
}

class RigidBodySolver {
 public:
  explicit RigidBodySolver(int n) : n_(n) {
    CUDA_CHECK(cudaStreamCreate(&stream_));
    CUDA_CHECK(cudaMallocManaged(&params_, sizeof(SolverParams)));
    CUDA_CHECK(cudaMalloc(&d_pos_, n_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_vel_, n_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_mass_, n_ * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_pos_, 0, n_ * sizeof(float), stream_));
    CUDA_CHECK(cudaMemsetAsync(d_vel_, 0, n_ * sizeof(float), stream_));
    fill_mass();
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    *params_ = SolverParams{-9.81f, 0.01f, 1.f / 240.f, 0};  // nothing runs yet
  }
  ~RigidBodySolver() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_mass_);
    cudaFree(d_vel_);
    cudaFree(d_pos_);
    cudaFree(params_);
    cudaStreamDestroy(stream_);
  }

  void substep() {
    const int blocks = (n_ + 255) / 256;
    apply_forces<<<blocks, 256, 0, stream_>>>(params_, d_mass_, d_vel_, n_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));  // forces read params_: done
    const float dt = params_->dt;
    integrate<<<blocks, 256, 0, stream_>>>(d_pos_, d_vel_, n_, dt);
    // prepare the next substep while integration runs
    params_->substep += 1;  // EXPECT: managed_concurrent_access
    params_->damping = params_->substep > 120 ? 0.02f : 0.01f;
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  float samplePosition() {
    float x = 0.f;
    CUDA_CHECK(cudaMemcpy(&x, d_pos_, sizeof(float), cudaMemcpyDeviceToHost));
    return x;
  }

 private:
  void fill_mass() {
    float* h_mass = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_mass, n_ * sizeof(float)));
    for (int i = 0; i < n_; ++i) h_mass[i] = 1.f + (i % 10);
    CUDA_CHECK(cudaMemcpyAsync(d_mass_, h_mass, n_ * sizeof(float), cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaFreeHost(h_mass));
  }

  int n_;
  cudaStream_t stream_ = nullptr;
  SolverParams* params_ = nullptr;
  float* d_pos_ = nullptr;
  float* d_vel_ = nullptr;
  float* d_mass_ = nullptr;
};

int main() {
  RigidBodySolver solver(1 << 18);
  for (int frame = 0; frame < 60; ++frame)
    for (int s = 0; s < 4; ++s) solver.substep();
  std::printf("body 0 at x=%.4f\n", solver.samplePosition());
  return 0;
}

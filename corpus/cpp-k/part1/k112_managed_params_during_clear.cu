// case: A particle simulation keeps its per-step parameters in managed memory; each step launches the force-clearing kernel on an auxiliary stream and then updates the managed parameters on the host while that kernel (which does not use them) may still be running, which faults on devices without concurrent managed access.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(e_));       \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct StepParams {
  float dt;
  float damping;
  float softening2;
  int step;
};

__global__ void clear_forces(float3* __restrict__ f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f[i] = make_float3(0.f, 0.f, 0.f);
}

__global__ void accumulate_forces(const float3* __restrict__ pos, float3* __restrict__ f,
                                  const StepParams* __restrict__ p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 acc = f[i];
  float3 pi = pos[i];
  for (int j = 0; j < n; ++j) {
    float3 d = make_float3(pos[j].x - pi.x, pos[j].y - pi.y, pos[j].z - pi.z);
    float r2 = d.x * d.x + d.y * d.y + d.z * d.z + p->softening2;
    float inv = rsqrtf(r2 * r2 * r2);
    acc.x += d.x * inv;
    acc.y += d.y * inv;
    acc.z += d.z * inv;
  }
  f[i] = acc;
}

__global__ void integrate(float3* __restrict__ pos, float3* __restrict__ vel,
                          const float3* __restrict__ f, const StepParams* __restrict__ p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 v = vel[i];
  v.x = (v.x + f[i].x * p->dt) * p->damping;
  v.y = (v.y + f[i].y * p->dt) * p->damping;
  v.z = (v.z + f[i].z * p->dt) * p->damping;
  vel[i] = v;
  pos[i].x += v.x * p->dt;
  pos[i].y += v.y * p->dt;
  pos[i].z += v.z * p->dt;
}

static float adaptive_dt(int step) { return step < 100 ? 1e-3f : 5e-3f; }

int main() {
  const int n = 8192, steps = 400, block = 256, grid = (n + block - 1) / block;

  StepParams* params = nullptr;
  CHECK_CUDA(cudaMallocManaged(&params, sizeof(StepParams)));
  params->dt = adaptive_dt(0);
  params->damping = 0.999f;
  params->softening2 = 1e-3f;
  params->step = 0;

  std::vector<float3> h_pos(n);
  for (int i = 0; i < n; ++i)
    h_pos[i] = make_float3(std::cos(0.01f * i) * (1 + i % 7), std::sin(0.01f * i) * (1 + i % 5),
                           0.001f * (i % 100));
  float3 *d_pos, *d_vel, *d_force;
  CHECK_CUDA(cudaMalloc(&d_pos, n * sizeof(float3)));
  CHECK_CUDA(cudaMalloc(&d_vel, n * sizeof(float3)));
  CHECK_CUDA(cudaMalloc(&d_force, n * sizeof(float3)));
  CHECK_CUDA(cudaMemcpy(d_pos, h_pos.data(), n * sizeof(float3), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_vel, 0, n * sizeof(float3)));

  cudaStream_t main_s, aux_s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&main_s, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&aux_s, cudaStreamNonBlocking));
  cudaEvent_t cleared;
  CHECK_CUDA(cudaEventCreateWithFlags(&cleared, cudaEventDisableTiming));
  // the uploads above ran on the legacy stream, which the non-blocking streams do not wait for
  CHECK_CUDA(cudaDeviceSynchronize());

  for (int s = 0; s < steps; ++s) {
    clear_forces<<<grid, block, 0, aux_s>>>(d_force, n);
    CHECK_CUDA(cudaEventRecord(cleared, aux_s));
    // overlap the host-side bookkeeping with the clear
    params->step = s;  // EXPECT: managed_concurrent_access
    params->dt = adaptive_dt(s);
    CHECK_CUDA(cudaStreamWaitEvent(main_s, cleared, 0));
    accumulate_forces<<<grid, block, 0, main_s>>>(d_pos, d_force, params, n);
    integrate<<<grid, block, 0, main_s>>>(d_pos, d_vel, d_force, params, n);
    CHECK_CUDA(cudaStreamSynchronize(main_s));
  }

  CHECK_CUDA(cudaMemcpy(h_pos.data(), d_pos, n * sizeof(float3), cudaMemcpyDeviceToHost));
  double r = 0.0;
  for (const float3& p : h_pos) r += std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
  std::printf("mean radius after %d steps: %.4f\n", params->step + 1, r / n);

  CHECK_CUDA(cudaEventDestroy(cleared));
  CHECK_CUDA(cudaStreamDestroy(aux_s));
  CHECK_CUDA(cudaStreamDestroy(main_s));
  CHECK_CUDA(cudaFree(d_force));
  CHECK_CUDA(cudaFree(d_vel));
  CHECK_CUDA(cudaFree(d_pos));
  CHECK_CUDA(cudaFree(params));
  return 0;
}

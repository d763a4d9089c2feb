// case: Buddy checkpointing near miss: the staging buffer is allocated once by the caller, ship_checkpoint() only packs it and starts MPI_Isend (request returned by pointer), and the buffer is freed after the final MPI_Waitall.
// expect: none
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                                                   \
  do {                                                                                  \
    cudaError_t st_ = (x);                                                              \
    if (st_ != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(st_));      \
      abort();                                                                          \
    }                                                                                   \
  } while (0)
#define CHECK_MPI(x)                                                                    \
  do {                                                                                  \
    int st_ = (x);                                                                      \
    if (st_ != MPI_SUCCESS) {                                                           \
      fprintf(stderr, "%s:%d: MPI error %d\n", __FILE__, __LINE__, st_);                \
      MPI_Abort(MPI_COMM_WORLD, st_);                                                   \
      abort();                                                                          \
    }                                                                                   \
  } while (0)

static const int TAG_CKPT = 77;

__global__ void init_particles(float4* pos, float4* vel, int n, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = 0.001f * (float)(i + rank * n);
  pos[i] = make_float4(cosf(a), sinf(a), 0.01f * (float)(i % 100), 1.f);
  vel[i] = make_float4(-sinf(a), cosf(a), 0.f, 0.f);
}

// One leapfrog step in a harmonic trap.
__global__ void md_step(float4* pos, float4* vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i], v = vel[i];
  v.x -= p.x * dt; v.y -= p.y * dt; v.z -= p.z * dt;
  p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
  pos[i] = p;
  vel[i] = v;
}

// Six floats per particle: position then velocity.
__global__ void pack_state(const float4* pos, const float4* vel, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float* o = out + 6 * (size_t)i;
  o[0] = pos[i].x; o[1] = pos[i].y; o[2] = pos[i].z;
  o[3] = vel[i].x; o[4] = vel[i].y; o[5] = vel[i].z;
}

__global__ void checksum(const float* v, int m, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) atomicAdd(out, (double)v[i]);
}

// Starts sending a snapshot of (pos, vel) to the buddy rank from the caller's staging
// buffer; the request comes back through `req`, and the caller keeps the buffer alive and
// untouched until it has completed the request.
static void ship_checkpoint(const float4* d_pos, const float4* d_vel, int n, float* d_stage,
                            int buddy, cudaStream_t s, MPI_Comm comm, MPI_Request* req) {
  pack_state<<<(n + 255) / 256, 256, 0, s>>>(d_pos, d_vel, n, d_stage);
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_MPI(MPI_Isend(d_stage, 6 * n, MPI_FLOAT, buddy, TAG_CKPT, comm, req));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const int n = 1 << 18, nsteps = 1000, ckpt_every = 100;
  const float dt = 1e-3f;
  int buddy = rank ^ 1;
  if (buddy >= nranks) buddy = rank;  // odd rank count: the last rank keeps its own copy

  float4 *d_pos, *d_vel;
  float* d_backup;  // the buddy's latest snapshot
  float* d_stage;   // our outgoing snapshot
  CHECK_CUDA(cudaMalloc(&d_stage, (size_t)6 * n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_pos, n * sizeof(float4)));
  CHECK_CUDA(cudaMalloc(&d_vel, n * sizeof(float4)));
  CHECK_CUDA(cudaMalloc(&d_backup, (size_t)6 * n * sizeof(float)));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  init_particles<<<(n + 255) / 256, 256, 0, s>>>(d_pos, d_vel, n, rank);
  CHECK_CUDA(cudaMemsetAsync(d_backup, 0, (size_t)6 * n * sizeof(float), s));
  CHECK_CUDA(cudaStreamSynchronize(s));

  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // [0] buddy's snapshot in, [1] ours out
  for (int step = 1; step <= nsteps; ++step) {
    md_step<<<(n + 255) / 256, 256, 0, s>>>(d_pos, d_vel, n, dt);
    if (step % ckpt_every == 0) {
      CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));  // previous exchange finished
      CHECK_MPI(MPI_Irecv(d_backup, 6 * n, MPI_FLOAT, buddy, TAG_CKPT, MPI_COMM_WORLD, &reqs[0]));
      ship_checkpoint(d_pos, d_vel, n, d_stage, buddy, s, MPI_COMM_WORLD, &reqs[1]);
    }
  }
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));

  // Fingerprint of the snapshot held for the buddy.
  double *d_sum, *h_sum;
  CHECK_CUDA(cudaMalloc(&d_sum, sizeof(double)));
  CHECK_CUDA(cudaMallocHost(&h_sum, sizeof(double)));
  CHECK_CUDA(cudaMemsetAsync(d_sum, 0, sizeof(double), s));
  checksum<<<(6 * n + 255) / 256, 256, 0, s>>>(d_backup, 6 * n, d_sum);
  CHECK_CUDA(cudaMemcpyAsync(h_sum, d_sum, sizeof(double), cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  printf("rank %d holds rank %d's checkpoint, checksum %.6e\n", rank, buddy, *h_sum);

  CHECK_CUDA(cudaFree(d_pos));
  CHECK_CUDA(cudaFree(d_vel));
  CHECK_CUDA(cudaFree(d_backup));
  CHECK_CUDA(cudaFree(d_stage));
  CHECK_CUDA(cudaFree(d_sum));
  CHECK_CUDA(cudaFreeHost(h_sum));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_MPI(MPI_Finalize());
  return 0;
}

// case: Seismic stencil with an RAII Exchange class: Exchange::post launches the face-packing kernel on the stream and starts MPI_Isend on the packed faces with no stream synchronize in between.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                                                   \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      fprintf(stderr, "CUDA %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      abort();                                                                          \
    }                                                                                   \
  } while (0)
#define CHECK_MPI(x)                                                                    \
  do {                                                                                  \
    int e_ = (x);                                                                       \
    if (e_ != MPI_SUCCESS) {                                                            \
      fprintf(stderr, "MPI error %d (%s:%d)\n", e_, __FILE__, __LINE__);                \
      abort();                                                                          \
    }                                                                                   \
  } while (0)

// 2-D acoustic wave equation, 8th order in space, decomposed over depth (z) rows.
// A field holds nz + 2R rows of nx samples: rows [0, R) and [nz + R, nz + 2R) are ghosts.
constexpr int R = 4;
constexpr int BX = 32, BY = 8;
constexpr int TAG_UP = 11, TAG_DOWN = 12;

struct Coeffs { float c0, c1, c2, c3, c4; };

__global__ void pack_faces(const float* u, int nx, int nz, float* top, float* bot) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= R * nx) return;
  top[i] = u[R * nx + i];   // first R interior rows
  bot[i] = u[nz * nx + i];  // last R interior rows
}

__global__ void unpack_faces(float* u, int nx, int nz, const float* top, const float* bot) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= R * nx) return;
  u[i] = top[i];
  u[(nz + R) * nx + i] = bot[i];
}

// Updates interior rows [row_begin, row_end) (0-based interior indices).
__global__ void wave_step(const float* prev, const float* cur, float* next, const float* vel2,
                          int nx, int row_begin, int row_end, Coeffs c) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int z = row_begin + blockIdx.y * blockDim.y + threadIdx.y;
  if (x < R || x >= nx - R || z >= row_end) return;
  int idx = (z + R) * nx + x;
  float lap = 2.f * c.c0 * cur[idx]
            + c.c1 * (cur[idx - 1] + cur[idx + 1] + cur[idx - nx] + cur[idx + nx])
            + c.c2 * (cur[idx - 2] + cur[idx + 2] + cur[idx - 2 * nx] + cur[idx + 2 * nx])
            + c.c3 * (cur[idx - 3] + cur[idx + 3] + cur[idx - 3 * nx] + cur[idx + 3 * nx])
            + c.c4 * (cur[idx - 4] + cur[idx + 4] + cur[idx - 4 * nx] + cur[idx + 4 * nx]);
  next[idx] = 2.f * cur[idx] - prev[idx] + vel2[idx] * lap;
}

__global__ void add_source(float* u, int idx, float amp) {
  if (blockIdx.x == 0 && threadIdx.x == 0) u[idx] += amp;
}

__global__ void energy(const float* u, int nx, int nz, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx * nz) atomicAdd(out, u[R * nx + i] * u[R * nx + i]);
}

static float ricker(float t, float f) {
  const float a = 3.14159265f * f * (t - 1.f / f);
  return (1.f - 2.f * a * a) * std::exp(-a * a);
}

// Owns the face buffers and the four requests of one halo exchange. Waits for what is
// left and frees everything when it goes out of scope.
class Exchange {
 public:
  Exchange(int nx, int up, int down, MPI_Comm comm)
      : n_(R * nx), up_(up), down_(down), comm_(comm) {
    CHECK_CUDA(cudaMalloc(&send_top_, n_ * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&send_bot_, n_ * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&recv_top_, n_ * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&recv_bot_, n_ * sizeof(float)));
    // A missing neighbour (MPI_PROC_NULL) sends nothing: its ghosts stay zero.
    CHECK_CUDA(cudaMemset(recv_top_, 0, n_ * sizeof(float)));
    CHECK_CUDA(cudaMemset(recv_bot_, 0, n_ * sizeof(float)));
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < 4; ++i) reqs_[i] = MPI_REQUEST_NULL;
  }
  ~Exchange() {
    MPI_Waitall(4, reqs_, MPI_STATUSES_IGNORE);
    cudaFree(send_top_);
    cudaFree(send_bot_);
    cudaFree(recv_top_);
    cudaFree(recv_bot_);
  }
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Posts the receives, packs the boundary rows of `u` and starts the sends.
  void post(const float* u, int nx, int nz, cudaStream_t s) {
    CHECK_MPI(MPI_Irecv(recv_top_, n_, MPI_FLOAT, up_, TAG_DOWN, comm_, &reqs_[0]));
    CHECK_MPI(MPI_Irecv(recv_bot_, n_, MPI_FLOAT, down_, TAG_UP, comm_, &reqs_[1]));
    pack_faces<<<(n_ + 255) / 256, 256, 0, s>>>(u, nx, nz, send_top_, send_bot_);
    CHECK_MPI(MPI_Isend(send_top_, n_, MPI_FLOAT, up_, TAG_UP, comm_, &reqs_[2]));  // EXPECT: missing_sync
    CHECK_MPI(MPI_Isend(send_bot_, n_, MPI_FLOAT, down_, TAG_DOWN, comm_, &reqs_[3]));
  }

  void complete() { CHECK_MPI(MPI_Waitall(4, reqs_, MPI_STATUSES_IGNORE)); }

  void unpack(float* u, int nx, int nz, cudaStream_t s) const {
    unpack_faces<<<(n_ + 255) / 256, 256, 0, s>>>(u, nx, nz, recv_top_, recv_bot_);
  }

 private:
  int n_, up_, down_;
  MPI_Comm comm_;
  float *send_top_ = nullptr, *send_bot_ = nullptr, *recv_top_ = nullptr, *recv_bot_ = nullptr;
  MPI_Request reqs_[4];
};

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const int nx = 1024, nz = 256, nt = 600;
  const float dx = 10.f, dt = 1e-3f;
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int down = rank + 1 < nranks ? rank + 1 : MPI_PROC_NULL;
  const size_t cells = (size_t)nx * (nz + 2 * R);
  const Coeffs coef = {-205.f / 72.f, 8.f / 5.f, -1.f / 5.f, 8.f / 315.f, -1.f / 560.f};

  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  float *d_prev, *d_cur, *d_next, *d_vel2, *d_energy;
  CHECK_CUDA(cudaMalloc(&d_prev, cells * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_cur, cells * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_next, cells * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_vel2, cells * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_energy, sizeof(float)));
  CHECK_CUDA(cudaMemsetAsync(d_prev, 0, cells * sizeof(float), s));
  CHECK_CUDA(cudaMemsetAsync(d_cur, 0, cells * sizeof(float), s));
  CHECK_CUDA(cudaMemsetAsync(d_next, 0, cells * sizeof(float), s));

  // Two layers: 2000 m/s above global depth row 300, 3200 m/s below; stored as (v dt / dx)^2.
  float* h_vel2;
  CHECK_CUDA(cudaMallocHost(&h_vel2, cells * sizeof(float)));
  for (int z = 0; z < nz + 2 * R; ++z) {
    const float v = (rank * nz + z - R) < 300 ? 2000.f : 3200.f;
    for (int x = 0; x < nx; ++x) h_vel2[(size_t)z * nx + x] = (v * dt / dx) * (v * dt / dx);
  }
  CHECK_CUDA(cudaMemcpyAsync(d_vel2, h_vel2, cells * sizeof(float), cudaMemcpyHostToDevice, s));

  float *h_energy, *h_energy_all;
  CHECK_CUDA(cudaMallocHost(&h_energy, sizeof(float)));
  CHECK_CUDA(cudaMallocHost(&h_energy_all, sizeof(float)));

  const int src_rank = 0, src_idx = (R + 8) * nx + nx / 2;  // near the surface
  const dim3 block(BX, BY);
  const dim3 grid_inner((nx + BX - 1) / BX, (nz - 2 * R + BY - 1) / BY);
  const dim3 grid_edge((nx + BX - 1) / BX, (R + BY - 1) / BY);
  {
    Exchange ex(nx, up, down, MPI_COMM_WORLD);
    for (int t = 0; t < nt; ++t) {
      ex.post(d_cur, nx, nz, s);
      // Rows that need no ghost overlap the exchange.
      wave_step<<<grid_inner, block, 0, s>>>(d_prev, d_cur, d_next, d_vel2, nx, R, nz - R, coef);
      ex.complete();
      ex.unpack(d_cur, nx, nz, s);
      wave_step<<<grid_edge, block, 0, s>>>(d_prev, d_cur, d_next, d_vel2, nx, 0, R, coef);
      wave_step<<<grid_edge, block, 0, s>>>(d_prev, d_cur, d_next, d_vel2, nx, nz - R, nz, coef);
      if (rank == src_rank) add_source<<<1, 1, 0, s>>>(d_next, src_idx, ricker(t * dt, 15.f));

      float* tmp = d_prev;  // rotate the time levels
      d_prev = d_cur;
      d_cur = d_next;
      d_next = tmp;

      // Blow-up check every step: the energy goes to the trace log.
      CHECK_CUDA(cudaMemsetAsync(d_energy, 0, sizeof(float), s));
      energy<<<(nx * nz + 255) / 256, 256, 0, s>>>(d_cur, nx, nz, d_energy);
      CHECK_CUDA(cudaMemcpyAsync(h_energy, d_energy, sizeof(float), cudaMemcpyDeviceToHost, s));
      CHECK_CUDA(cudaStreamSynchronize(s));
      CHECK_MPI(MPI_Allreduce(h_energy, h_energy_all, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
      if (!std::isfinite(*h_energy_all)) {
        if (rank == 0) fprintf(stderr, "unstable at step %d\n", t);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      if (rank == 0 && t % 100 == 0) printf("step %4d  energy %.6e\n", t, *h_energy_all);
    }
  }  // ~Exchange: waits for anything left, frees the face buffers

  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaFree(d_prev));
  CHECK_CUDA(cudaFree(d_cur));
  CHECK_CUDA(cudaFree(d_next));
  CHECK_CUDA(cudaFree(d_vel2));
  CHECK_CUDA(cudaFree(d_energy));
  CHECK_CUDA(cudaFreeHost(h_vel2));
  CHECK_CUDA(cudaFreeHost(h_energy));
  CHECK_CUDA(cudaFreeHost(h_energy_all));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_MPI(MPI_Finalize());
  return 0;
}

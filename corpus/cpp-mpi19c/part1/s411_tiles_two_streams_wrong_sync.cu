// case: Image-tiling pipeline: odd tiles are filtered on stream sB, but a copy-pasted cudaStreamSynchronize(sA) precedes the MPI_Isend of d_outB, so the send may read the tile the sB kernel is still writing.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x)                                                             \
  do {                                                                            \
    cudaError_t err_ = (x);                                                       \
    if (err_ != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA: %s at %s:%d\n", cudaGetErrorString(err_), __FILE__, \
              __LINE__);                                                          \
      abort();                                                                    \
    }                                                                             \
  } while (0)
#define CHECK_MPI(x)                                                              \
  do {                                                                            \
    int err_ = (x);                                                               \
    if (err_ != MPI_SUCCESS) {                                                    \
      fprintf(stderr, "MPI: error %d at %s:%d\n", err_, __FILE__, __LINE__);      \
      MPI_Abort(MPI_COMM_WORLD, err_);                                            \
      abort();                                                                    \
    }                                                                             \
  } while (0)

constexpr int TILE = 256;            // tiles are TILE x TILE floats
constexpr int TILES_PER_RANK = 8;    // every producer rank filters one row of tiles

__device__ float px(const float* img, int w, int x, int y) {
  x = min(max(x, 0), w - 1);
  y = min(max(y, 0), w - 1);
  return img[y * w + x];
}

// Sobel gradient magnitude with clamped borders.
__global__ void sobel(const float* in, float* out, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= w) return;
  float gx = -px(in, w, x - 1, y - 1) - 2.f * px(in, w, x - 1, y) - px(in, w, x - 1, y + 1)
           + px(in, w, x + 1, y - 1) + 2.f * px(in, w, x + 1, y) + px(in, w, x + 1, y + 1);
  float gy = -px(in, w, x - 1, y - 1) - 2.f * px(in, w, x, y - 1) - px(in, w, x + 1, y - 1)
           + px(in, w, x - 1, y + 1) + 2.f * px(in, w, x, y + 1) + px(in, w, x + 1, y + 1);
  out[y * w + x] = sqrtf(gx * gx + gy * gy);
}

// Copies tile `index` into the mosaic, whose rows hold `tiles_per_row` tiles.
__global__ void place_tile(const float* tile, float* mosaic, int tiles_per_row, int index, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= w) return;
  size_t row = (size_t)(index / tiles_per_row) * w + y;
  size_t col = (size_t)(index % tiles_per_row) * w + x;
  mosaic[row * (size_t)tiles_per_row * w + col] = tile[y * w + x];
}

__global__ void checksum(const float* v, size_t n, double* out) {
  double acc = 0.0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    acc += v[i];
  atomicAdd(out, acc);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const size_t tile_px = (size_t)TILE * TILE;
  const size_t bytes = tile_px * sizeof(float);
  const dim3 block(16, 16), grid(TILE / 16, TILE / 16);

  if (rank == 0) {
    // Assembler: takes the filtered tiles in whatever order they arrive.
    const int total = TILES_PER_RANK * (nranks - 1);
    cudaStream_t s0;
    CHECK_CUDA(cudaStreamCreate(&s0));
    std::vector<float*> d_tiles(total, nullptr);
    std::vector<MPI_Request> rreq(total, MPI_REQUEST_NULL);
    for (int i = 0; i < total; ++i) {
      CHECK_CUDA(cudaMalloc(&d_tiles[i], bytes));
      const int src = 1 + i / TILES_PER_RANK, tag = i % TILES_PER_RANK;
      CHECK_MPI(MPI_Irecv(d_tiles[i], (int)tile_px, MPI_FLOAT, src, tag, MPI_COMM_WORLD, &rreq[i]));
    }
    float* d_mosaic;
    CHECK_CUDA(cudaMalloc(&d_mosaic, (total + 1) * bytes));
    CHECK_CUDA(cudaMemsetAsync(d_mosaic, 0, (total + 1) * bytes, s0));

    std::vector<int> arrived(total + 1);
    int remaining = total;
    while (remaining > 0) {
      int outcount = 0;
      CHECK_MPI(MPI_Waitsome(total, rreq.data(), &outcount, arrived.data(), MPI_STATUSES_IGNORE));
      for (int j = 0; j < outcount; ++j)
        place_tile<<<grid, block, 0, s0>>>(d_tiles[arrived[j]], d_mosaic, TILES_PER_RANK, arrived[j], TILE);
      remaining -= outcount;
    }
    CHECK_MPI(MPI_Waitall(total, rreq.data(), MPI_STATUSES_IGNORE));  // all null by now

    double *d_sum, *h_sum;
    CHECK_CUDA(cudaMalloc(&d_sum, sizeof(double)));
    CHECK_CUDA(cudaMallocHost(&h_sum, sizeof(double)));
    CHECK_CUDA(cudaMemsetAsync(d_sum, 0, sizeof(double), s0));
    checksum<<<128, 256, 0, s0>>>(d_mosaic, (size_t)total * tile_px, d_sum);
    CHECK_CUDA(cudaMemcpyAsync(h_sum, d_sum, sizeof(double), cudaMemcpyDeviceToHost, s0));
    CHECK_CUDA(cudaStreamSynchronize(s0));
    printf("mosaic of %d tiles, gradient sum %.6e\n", total, *h_sum);

    for (float* t : d_tiles) CHECK_CUDA(cudaFree(t));
    CHECK_CUDA(cudaFree(d_mosaic));
    CHECK_CUDA(cudaFree(d_sum));
    CHECK_CUDA(cudaFreeHost(h_sum));
    CHECK_CUDA(cudaStreamDestroy(s0));
  } else {
    // Producer: even tiles on stream sA, odd tiles on stream sB.
    cudaStream_t sA, sB;
    CHECK_CUDA(cudaStreamCreateWithFlags(&sA, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&sB, cudaStreamNonBlocking));
    float* h_strip;
    CHECK_CUDA(cudaMallocHost(&h_strip, TILES_PER_RANK * bytes));
    for (int t = 0; t < TILES_PER_RANK; ++t)
      for (int y = 0; y < TILE; ++y)
        for (int x = 0; x < TILE; ++x)
          h_strip[t * tile_px + (size_t)y * TILE + x] =
              0.5f + 0.5f * std::sin(0.05f * (x + t * TILE) + 0.02f * (y + rank * TILE));

    float *d_inA, *d_inB, *d_outA, *d_outB;
    CHECK_CUDA(cudaMalloc(&d_inA, bytes));
    CHECK_CUDA(cudaMalloc(&d_inB, bytes));
    CHECK_CUDA(cudaMalloc(&d_outA, bytes));
    CHECK_CUDA(cudaMalloc(&d_outB, bytes));

    MPI_Request sreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int t = 0; t + 1 < TILES_PER_RANK; t += 2) {
      CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));  // both output tiles are free again

      CHECK_CUDA(cudaMemcpyAsync(d_inA, h_strip + t * tile_px, bytes, cudaMemcpyHostToDevice, sA));
      sobel<<<grid, block, 0, sA>>>(d_inA, d_outA, TILE);
      CHECK_CUDA(cudaMemcpyAsync(d_inB, h_strip + (t + 1) * tile_px, bytes, cudaMemcpyHostToDevice, sB));
      sobel<<<grid, block, 0, sB>>>(d_inB, d_outB, TILE);

      CHECK_CUDA(cudaStreamSynchronize(sA));
      CHECK_MPI(MPI_Isend(d_outA, (int)tile_px, MPI_FLOAT, 0, t, MPI_COMM_WORLD, &sreq[0]));
      CHECK_CUDA(cudaStreamSynchronize(sA));
      CHECK_MPI(MPI_Isend(d_outB, (int)tile_px, MPI_FLOAT, 0, t + 1, MPI_COMM_WORLD, &sreq[1]));  // EXPECT: missing_sync
    }
    CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
    CHECK_CUDA(cudaDeviceSynchronize());

    CHECK_CUDA(cudaFree(d_inA));
    CHECK_CUDA(cudaFree(d_inB));
    CHECK_CUDA(cudaFree(d_outA));
    CHECK_CUDA(cudaFree(d_outB));
    CHECK_CUDA(cudaFreeHost(h_strip));
    CHECK_CUDA(cudaStreamDestroy(sA));
    CHECK_CUDA(cudaStreamDestroy(sB));
  }

  CHECK_MPI(MPI_Finalize());
  return 0;
}

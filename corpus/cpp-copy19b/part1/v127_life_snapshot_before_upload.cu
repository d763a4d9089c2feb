// case: Game of Life that snapshots the initial board with a device-to-device copy one line before the board is uploaded, so the snapshot reads the board's uninitialized allocation
// expect: uninitialized_device_read=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define W 1024
#define H 1024
#define GENERATIONS 64

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void life_step(const unsigned char *cur, unsigned char *next) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  int alive = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if (dx == 0 && dy == 0) continue;
      int xx = (x + dx + W) % W, yy = (y + dy + H) % H;
      alive += cur[yy * W + xx];
    }
  unsigned char c = cur[y * W + x];
  next[y * W + x] = (alive == 3 || (c && alive == 2)) ? 1 : 0;
}

int main() {
  const size_t bytes = W * H;
  std::vector<unsigned char> h_board(bytes), h_initial(bytes);
  srand(42);
  for (size_t i = 0; i < bytes; ++i) h_board[i] = (rand() % 4) == 0;

  unsigned char *d_board, *d_next, *d_initial;
  CUDA_CHECK(cudaMalloc(&d_board, bytes));
  CUDA_CHECK(cudaMalloc(&d_next, bytes));
  CUDA_CHECK(cudaMalloc(&d_initial, bytes));

  CUDA_CHECK(cudaMemcpy(d_initial, d_board, bytes, cudaMemcpyDeviceToDevice)); // EXPECT: uninitialized_device_read
  CUDA_CHECK(cudaMemcpy(d_board, h_board.data(), bytes, cudaMemcpyHostToDevice));

  dim3 block(32, 8), grid(W / 32, H / 8);
  for (int g = 0; g < GENERATIONS; g += 2) {
    life_step<<<grid, block>>>(d_board, d_next);
    life_step<<<grid, block>>>(d_next, d_board);
  }
  CUDA_CHECK(cudaGetLastError());

  CUDA_CHECK(cudaMemcpy(h_board.data(), d_board, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(h_initial.data(), d_initial, bytes, cudaMemcpyDeviceToHost));

  int alive = 0, changed = 0;
  for (size_t i = 0; i < bytes; ++i) {
    alive += h_board[i];
    changed += h_board[i] != h_initial[i];
  }
  printf("after %d generations: %d alive, %d cells differ from the start\n", GENERATIONS, alive, changed);

  CUDA_CHECK(cudaFree(d_board));
  CUDA_CHECK(cudaFree(d_next));
  CUDA_CHECK(cudaFree(d_initial));
  return 0;
}

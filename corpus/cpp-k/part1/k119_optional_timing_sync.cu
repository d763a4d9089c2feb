// case: A batched dot-product benchmark only waits for the stream inside its optional timing block (cudaEventSynchronize on the stop event); when timing is off, the host computes the norm of the pinned results right after enqueuing the D2H copy.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    cudaError_t e = (expr);                                                    \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Options {
  int batch = 4096;
  int dim = 768;
  bool timing = false;
};

static Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--time")) o.timing = true;
    else if (!std::strcmp(argv[i], "--batch") && i + 1 < argc) o.batch = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--dim") && i + 1 < argc) o.dim = std::atoi(argv[++i]);
  }
  return o;
}

// one warp per row: out[r] = dot(a[r], b[r])
__global__ void batched_dot(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int rows, int dim) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (warp >= rows) return;
  const float* ra = a + size_t(warp) * dim;
  const float* rb = b + size_t(warp) * dim;
  float acc = 0.f;
  for (int k = lane; k < dim; k += 32) acc += ra[k] * rb[k];
  for (int off = 16; off; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) out[warp] = acc;
}

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  const size_t elems = size_t(opt.batch) * opt.dim;

  float *h_a, *h_b, *h_out;
  CUDA_CHECK(cudaMallocHost(&h_a, elems * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_b, elems * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, opt.batch * sizeof(float)));
  for (size_t i = 0; i < elems; ++i) {
    h_a[i] = std::cos(0.001f * i);
    h_b[i] = std::sin(0.002f * i);
  }

  float *d_a, *d_b, *d_out;
  CUDA_CHECK(cudaMalloc(&d_a, elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_b, elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, opt.batch * sizeof(float)));

  cudaStream_t s;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  CUDA_CHECK(cudaEventRecord(start, s));
  CUDA_CHECK(cudaMemcpyAsync(d_a, h_a, elems * sizeof(float), cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaMemcpyAsync(d_b, h_b, elems * sizeof(float), cudaMemcpyHostToDevice, s));
  const int threads = 256;
  const int blocks = static_cast<int>((size_t(opt.batch) * 32 + threads - 1) / threads);
  batched_dot<<<blocks, threads, 0, s>>>(d_a, d_b, d_out, opt.batch, opt.dim);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, opt.batch * sizeof(float), cudaMemcpyDeviceToHost, s));

  if (opt.timing) {
    CUDA_CHECK(cudaEventRecord(stop, s));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("h2d + dot + d2h: %.3f ms (%.2f GB/s)\n", ms,
                2.0 * elems * sizeof(float) / (ms * 1e6));
  }

  double norm2 = 0.0;
  for (int r = 0; r < opt.batch; ++r) norm2 += double(h_out[r]) * h_out[r];  // EXPECT: missing_sync
  std::printf("||dots|| = %.6f\n", std::sqrt(norm2));

  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaFreeHost(h_b));
  CUDA_CHECK(cudaFreeHost(h_a));
  return 0;
}

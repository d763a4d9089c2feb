// 2D smoke solver for in-game effects. Each step's graph re-injects the emitters' density from
// a source map built on the host from the level's emitter list, then diffuses and advects the
// density upward. The source map is a std::vector sized by the level's grid, so the captured
// upload reads pageable memory at every replay.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                                \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "smoke: %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

struct Emitter {
  float x, y, radius, rate;
};

struct LevelConfig {
  int nx, ny;
  std::vector<Emitter> emitters;
};

__global__ void inject(float* density, const float* source, int cells, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < cells) density[i] = fminf(1.0f, density[i] + dt * source[i]);
}

// Diffusion by one Jacobi sweep plus semi-Lagrangian upward advection (buoyant plume).
__global__ void diffuse_advect(const float* src, float* dst, int nx, int ny, float k, float rise) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  float fy = fmaxf(0.0f, y - rise);
  int y0 = int(fy);
  float t = fy - y0;
  int y1 = min(y0 + 1, ny - 1);
  float c = (1.0f - t) * src[y0 * nx + x] + t * src[y1 * nx + x];
  float l = src[y * nx + max(x - 1, 0)], r = src[y * nx + min(x + 1, nx - 1)];
  float d = src[max(y - 1, 0) * nx + x], u = src[min(y + 1, ny - 1) * nx + x];
  dst[y * nx + x] = 0.995f * (c + k * (l + r + d + u - 4.0f * c));
}

static LevelConfig load_level(int argc, char** argv) {
  LevelConfig cfg;
  cfg.nx = argc > 1 ? std::atoi(argv[1]) : 384;
  cfg.ny = argc > 2 ? std::atoi(argv[2]) : 256;
  cfg.emitters = {{0.25f, 0.05f, 0.03f, 4.0f}, {0.6f, 0.08f, 0.05f, 2.5f}, {0.8f, 0.02f, 0.02f, 6.0f}};
  return cfg;
}

static std::vector<float> build_source_map(const LevelConfig& cfg) {
  std::vector<float> src(size_t(cfg.nx) * cfg.ny, 0.0f);
  for (const Emitter& e : cfg.emitters)
    for (int y = 0; y < cfg.ny; ++y)
      for (int x = 0; x < cfg.nx; ++x) {
        float dx = x / float(cfg.nx) - e.x, dy = y / float(cfg.ny) - e.y;
        if (dx * dx + dy * dy < e.radius * e.radius) src[size_t(y) * cfg.nx + x] += e.rate;
      }
  return src;
}

int main(int argc, char** argv) {
  const LevelConfig cfg = load_level(argc, argv);
  const int cells = cfg.nx * cfg.ny;
  const size_t bytes = sizeof(float) * cells;
  std::vector<float> source = build_source_map(cfg);

  float *d_a, *d_b, *d_source, *h_density;
  CUDA_CHECK(cudaMalloc(&d_a, bytes));
  CUDA_CHECK(cudaMalloc(&d_b, bytes));
  CUDA_CHECK(cudaMalloc(&d_source, bytes));
  CUDA_CHECK(cudaMemset(d_a, 0, bytes));
  CUDA_CHECK(cudaMemset(d_b, 0, bytes));
  CUDA_CHECK(cudaMallocHost(&h_density, bytes));

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const dim3 blk(16, 16), grd((cfg.nx + 15) / 16, (cfg.ny + 15) / 16);
  const float dt = 1.0f / 60.0f;

  cudaGraph_t g;
  cudaGraphExec_t step;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMemcpyAsync(d_source, source.data(), bytes, cudaMemcpyHostToDevice, s));  // EXPECT: pageable_async_copy
  inject<<<(cells + 255) / 256, 256, 0, s>>>(d_a, d_source, cells, dt);
  float* cur = d_a;
  float* nxt = d_b;
  for (int sweep = 0; sweep < 4; ++sweep) {
    diffuse_advect<<<grd, blk, 0, s>>>(cur, nxt, cfg.nx, cfg.ny, 0.1f, 0.25f);
    std::swap(cur, nxt);
  }
  CUDA_CHECK(cudaStreamEndCapture(s, &g));
  CUDA_CHECK(cudaGraphInstantiate(&step, g, 0));
  CUDA_CHECK(cudaGraphDestroy(g));

  for (int frame = 0; frame < 240; ++frame) {
    CUDA_CHECK(cudaGraphLaunch(step, s));
    if (frame % 60 == 59) {
      CUDA_CHECK(cudaMemcpyAsync(h_density, d_a, bytes, cudaMemcpyDeviceToHost, s));
      CUDA_CHECK(cudaStreamSynchronize(s));
      double total = 0.0;
      for (int i = 0; i < cells; ++i) total += h_density[i];
      std::printf("frame %d: smoke mass %.2f\n", frame, total);
    }
  }

  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaGraphExecDestroy(step));
  CUDA_CHECK(cudaFreeHost(h_density));
  CUDA_CHECK(cudaFree(d_source));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;  // `source` outlives every replay
}

// case: a genomics aligner touches managed memory on the host while a kernel runs, but only allocations the kernel's stream cannot take: one allocated with cudaMemAttachHost and one attached to an idle host-side stream with cudaStreamAttachMemAsync(cudaMemAttachSingle) and synchronized; the aligner's own output is read after the sync; correct.
// expect: none
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

struct RunStats {
  unsigned long long batches;
  unsigned long long reads;
  double last_batch_ms;
};

__global__ void seed_extend(const unsigned char* reads, int n, int len, int* best_score) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  int score = 0, run = 0;
  for (int j = 0; j < len; ++j) {
    run = (reads[(size_t)r * len + j] & 1) ? run + 2 : max(run - 1, 0);
    score = max(score, run);
  }
  best_score[r] = score;
}

int main() {
  const int n = 1 << 16, len = 150;
  cudaStream_t compute, host_side;
  CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&host_side, cudaStreamNonBlocking));
  cudaEvent_t t0, t1;
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));

  RunStats* stats = nullptr;
  CUDA_CHECK(cudaMallocManaged(&stats, sizeof(RunStats), cudaMemAttachHost));
  unsigned int* coverage = nullptr;  // per-read-group counters, host-maintained
  CUDA_CHECK(cudaMallocManaged(&coverage, 4096 * sizeof(unsigned int)));
  CUDA_CHECK(cudaStreamAttachMemAsync(host_side, coverage, 0, cudaMemAttachSingle));
  CUDA_CHECK(cudaStreamSynchronize(host_side));

  unsigned char* reads = nullptr;
  int* scores = nullptr;
  CUDA_CHECK(cudaMallocManaged(&reads, (size_t)n * len));
  CUDA_CHECK(cudaMallocManaged(&scores, n * sizeof(int)));
  stats->batches = 0;
  stats->reads = 0;
  for (int g = 0; g < 4096; ++g) coverage[g] = 0;

  for (int batch = 0; batch < 10; ++batch) {
    // no kernel is running here: the previous batch was synchronized below
    for (size_t i = 0; i < (size_t)n * len; ++i) reads[i] = static_cast<unsigned char>((i * 31 + batch) % 5);
    CUDA_CHECK(cudaEventRecord(t0, compute));
    seed_extend<<<(n + 255) / 256, 256, 0, compute>>>(reads, n, len, scores);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(t1, compute));

    // host bookkeeping overlaps the kernel: neither allocation is visible to `compute`
    stats->batches += 1;
    stats->reads += n;
    for (int g = 0; g < 4096; ++g) coverage[g] += (g + batch) % 3;

    CUDA_CHECK(cudaStreamSynchronize(compute));
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    stats->last_batch_ms = ms;
    long long total = 0;
    for (int r = 0; r < n; ++r) total += scores[r];
    std::printf("batch %d: mean best score %.2f (%.3f ms)\n", batch, double(total) / n, ms);
  }
  std::printf("%llu batches, %llu reads, coverage[7]=%u\n", stats->batches, stats->reads, coverage[7]);

  CUDA_CHECK(cudaFree(scores));
  CUDA_CHECK(cudaFree(reads));
  CUDA_CHECK(cudaFree(coverage));
  CUDA_CHECK(cudaFree(stats));
  CUDA_CHECK(cudaEventDestroy(t1));
  CUDA_CHECK(cudaEventDestroy(t0));
  CUDA_CHECK(cudaStreamDestroy(host_side));
  CUDA_CHECK(cudaStreamDestroy(compute));
  return 0;
}

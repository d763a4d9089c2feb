// case: double-buffered audio pipeline: each pinned slot is refilled only after cudaEventSynchronize of its event, results are consumed after their event, and the destructor synchronizes the stream before freeing slots
// expect: none
#include <cstdio>

#include "staged_pipeline.cuh"

int main() {
  const int batch = 1 << 16, batches = 10;
  double total = 0.0;
  {
    StagedPipeline pipeline(batch);
    pipeline.run(
        batches,
        [&](short* h, int b) {
          for (int i = 0; i < batch; ++i) h[i] = static_cast<short>((i + b) % 2000 - 1000);
        },
        [&](const float* h, int) {
          for (int i = 0; i < batch; i += 1024) total += h[i];
        });
  }
  std::printf("checksum %f\n", total);
  return 0;
}

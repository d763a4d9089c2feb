// case: a C-style telemetry exporter allocates its snapshot buffer with cuMemHostAlloc(CU_MEMHOSTALLOC_WRITECOMBINED) in init, copies the device counters into it with cuMemcpyDtoHAsync and, after cuStreamSynchronize, walks the snapshot on the host to format the export (uncached reads).
// expect: write_combined_host_read=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define NUM_COUNTERS 65536

#define CU_CHECK(call)                                                            \
  do {                                                                            \
    CUresult r_ = (call);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                     \
      const char* s_ = NULL;                                                      \
      cuGetErrorString(r_, &s_);                                                  \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "unknown");     \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

static CUdevice g_dev;
static CUcontext g_ctx;
static CUstream g_stream;
static CUdeviceptr g_dev_counters;
static unsigned long long* g_snapshot;

__global__ void record_events(unsigned long long* counters, int n, unsigned int seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counters[(i * 7919u + seed) % NUM_COUNTERS], 1ull + (i & 3));
}

static void exporter_init(void) {
  CU_CHECK(cuInit(0));
  CU_CHECK(cuDeviceGet(&g_dev, 0));
  CU_CHECK(cuDevicePrimaryCtxRetain(&g_ctx, g_dev));
  CU_CHECK(cuCtxSetCurrent(g_ctx));
  CU_CHECK(cuStreamCreate(&g_stream, CU_STREAM_NON_BLOCKING));
  CU_CHECK(cuMemAlloc(&g_dev_counters, NUM_COUNTERS * sizeof(unsigned long long)));
  CU_CHECK(cuMemsetD32Async(g_dev_counters, 0, NUM_COUNTERS * 2, g_stream));
  /* the snapshot is only ever DMA'd into, so let the CPU skip caching it */
  CU_CHECK(cuMemHostAlloc((void**)&g_snapshot, NUM_COUNTERS * sizeof(unsigned long long),
                          CU_MEMHOSTALLOC_WRITECOMBINED));
}

static void exporter_tick(unsigned int seed) {
  record_events<<<(1 << 20) / 256, 256, 0, g_stream>>>((unsigned long long*)g_dev_counters, 1 << 20, seed);
}

static int exporter_flush(FILE* out) {
  unsigned long long total = 0, busiest = 0;
  int busiest_idx = -1, i;
  CU_CHECK(cuMemcpyDtoHAsync(g_snapshot, g_dev_counters, NUM_COUNTERS * sizeof(unsigned long long), g_stream));
  CU_CHECK(cuStreamSynchronize(g_stream));
  for (i = 0; i < NUM_COUNTERS; ++i) {
    unsigned long long v = g_snapshot[i];  // EXPECT: write_combined_host_read
    total += v;
    if (v > busiest) { busiest = v; busiest_idx = i; }
  }
  fprintf(out, "counters_total %llu\ncounter_busiest{idx=\"%d\"} %llu\n", total, busiest_idx, busiest);
  return busiest_idx;
}

static void exporter_shutdown(void) {
  CU_CHECK(cuStreamSynchronize(g_stream));
  CU_CHECK(cuMemFreeHost(g_snapshot));
  CU_CHECK(cuMemFree(g_dev_counters));
  CU_CHECK(cuStreamDestroy(g_stream));
  CU_CHECK(cuDevicePrimaryCtxRelease(g_dev));
}

int main(void) {
  unsigned int t;
  exporter_init();
  for (t = 0; t < 20; ++t) {
    exporter_tick(t);
    if (t % 5 == 4) exporter_flush(stdout);
  }
  exporter_shutdown();
  return 0;
}

// case: audio delay-line effect on a VMM mirrored buffer (one allocation mapped twice in one reservation); the kernel writes through the upper view and reads back through the lower one, with fence.proxy.alias between them (near-miss)
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define DRV_CHECK(call)                                                         \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      std::fprintf(stderr, "driver call %s failed (%d)\n", #call, int(r_));     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)
#define RT_CHECK(call)                                                          \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "runtime call %s failed: %s\n", #call,               \
                   cudaGetErrorString(e_));                                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__device__ __forceinline__ void alias_fence() { asm volatile("fence.proxy.alias;" ::: "memory"); }

// out[i] = dry*x[i] + wet*line[pos]; the write goes through `upper`, the read
// through `lower`, which map the same physical memory.
__global__ void delay_process(float* lower, float* upper, size_t cap, size_t write_pos,
                              const float* __restrict__ x, float* __restrict__ y, int frames,
                              float dry, float wet, float feedback) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= frames) return;
  size_t pos = (write_pos + i) % cap;
  float tap = lower[pos];                   // oldest sample, written `cap` frames ago
  upper[pos] = x[i] + feedback * tap;       // store the new sample through the other view
  alias_fence();                            // order the write through `upper` before reads through `lower`
  float check = lower[pos];
  y[i] = dry * x[i] + wet * tap + 0.f * check;
}

struct VmmMirror {
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr va = 0;
  size_t bytes = 0;
};

static VmmMirror create_mirror(size_t want, int dev) {
  VmmMirror m;
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t gran = 0;
  DRV_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  m.bytes = (want + gran - 1) / gran * gran;
  DRV_CHECK(cuMemCreate(&m.handle, m.bytes, &prop, 0));
  DRV_CHECK(cuMemAddressReserve(&m.va, 2 * m.bytes, 0, 0, 0));
  DRV_CHECK(cuMemMap(m.va, m.bytes, 0, m.handle, 0));
  DRV_CHECK(cuMemMap(m.va + m.bytes, m.bytes, 0, m.handle, 0));
  CUmemAccessDesc acc = {};
  acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  acc.location.id = dev;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  DRV_CHECK(cuMemSetAccess(m.va, 2 * m.bytes, &acc, 1));
  return m;
}

static void destroy_mirror(VmmMirror& m) {
  DRV_CHECK(cuMemUnmap(m.va, m.bytes));
  DRV_CHECK(cuMemUnmap(m.va + m.bytes, m.bytes));
  DRV_CHECK(cuMemRelease(m.handle));
  DRV_CHECK(cuMemAddressFree(m.va, 2 * m.bytes));
  m = VmmMirror{};
}

int main() {
  RT_CHECK(cudaSetDevice(0));
  RT_CHECK(cudaFree(0));
  const int frames = 48000 / 100;  // 10 ms at 48 kHz
  const int periods = 500;

  cudaStream_t audio;
  RT_CHECK(cudaStreamCreateWithFlags(&audio, cudaStreamNonBlocking));
  VmmMirror line = create_mirror(48000 * sizeof(float), 0);  // ~1 s of delay
  const size_t cap = line.bytes / sizeof(float);
  RT_CHECK(cudaMemsetAsync(reinterpret_cast<void*>(line.va), 0, line.bytes, audio));

  float *d_x = nullptr, *d_y = nullptr, *h_x = nullptr, *h_y = nullptr;
  RT_CHECK(cudaMalloc(&d_x, frames * sizeof(float)));
  RT_CHECK(cudaMalloc(&d_y, frames * sizeof(float)));
  RT_CHECK(cudaMallocHost(&h_x, frames * sizeof(float)));
  RT_CHECK(cudaMallocHost(&h_y, frames * sizeof(float)));

  size_t write_pos = 0;
  double energy = 0.0;
  for (int p = 0; p < periods; ++p) {
    for (int i = 0; i < frames; ++i) h_x[i] = std::sin(0.01f * float(p * frames + i));
    RT_CHECK(cudaMemcpyAsync(d_x, h_x, frames * sizeof(float), cudaMemcpyHostToDevice, audio));
    float* lower = reinterpret_cast<float*>(line.va);
    float* upper = reinterpret_cast<float*>(line.va + line.bytes);
    delay_process<<<(frames + 127) / 128, 128, 0, audio>>>(lower, upper, cap, write_pos, d_x, d_y, frames, 0.7f, 0.3f, 0.4f);
    write_pos = (write_pos + frames) % cap;
    RT_CHECK(cudaMemcpyAsync(h_y, d_y, frames * sizeof(float), cudaMemcpyDeviceToHost, audio));
    RT_CHECK(cudaStreamSynchronize(audio));
    for (int i = 0; i < frames; ++i) energy += double(h_y[i]) * h_y[i];
  }
  std::printf("output energy %.3f\n", energy);

  RT_CHECK(cudaStreamSynchronize(audio));
  destroy_mirror(line);
  cudaFreeHost(h_y);
  cudaFreeHost(h_x);
  cudaFree(d_y);
  cudaFree(d_x);
  cudaStreamDestroy(audio);
  return 0;
}

// case: A packet reassembler maps one VMM allocation twice back to back; its kernel writes fragments through the first mapping and, after fence.proxy.alias and __syncthreads, reads them through the second; access is granted before use and teardown unmaps both views before freeing the range: correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

static void check_drv(CUresult r, const char* what, int line) {
  if (r != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    std::fprintf(stderr, "line %d: %s: %s\n", line, what, s ? s : "unknown");
    std::exit(1);
  }
}
#define DRV_CHECK(x) check_drv((x), #x, __LINE__)

struct VmmMirror {
  CUdeviceptr base = 0;  // [base, base+size) and [base+size, base+2*size) map the same memory
  size_t size = 0;
  CUmemGenericAllocationHandle handle = 0;
};

static VmmMirror mirror_create(size_t min_bytes, int device) {
  VmmMirror m;
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t gran = 0;
  DRV_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  m.size = (min_bytes + gran - 1) / gran * gran;
  DRV_CHECK(cuMemAddressReserve(&m.base, 2 * m.size, gran, 0, 0));
  DRV_CHECK(cuMemCreate(&m.handle, m.size, &prop, 0));
  DRV_CHECK(cuMemMap(m.base, m.size, 0, m.handle, 0));
  DRV_CHECK(cuMemMap(m.base + m.size, m.size, 0, m.handle, 0));
  CUmemAccessDesc acc = {};
  acc.location = prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  DRV_CHECK(cuMemSetAccess(m.base, 2 * m.size, &acc, 1));
  return m;
}

static void mirror_destroy(VmmMirror& m) {
  DRV_CHECK(cuMemUnmap(m.base, m.size));
  DRV_CHECK(cuMemUnmap(m.base + m.size, m.size));
  DRV_CHECK(cuMemRelease(m.handle));
  DRV_CHECK(cuMemAddressFree(m.base, 2 * m.size));
  m = VmmMirror{};
}

// Each block copies one packet's fragments into the ring at its offset through `front`, then
// thread 0 checksums the packet reading the ring through `back` (back = front + ring size),
// the view the consumer process uses.
__global__ void reassemble(uint32_t* front, const uint32_t* back, uint32_t ring_words,
                           const uint32_t* __restrict__ frags, const uint32_t* __restrict__ offsets,
                           uint32_t words_per_packet, uint32_t* __restrict__ checksums) {
  const uint32_t pkt = blockIdx.x;
  const uint32_t start = offsets[pkt];
  for (uint32_t w = threadIdx.x; w < words_per_packet; w += blockDim.x)
    front[(start + w) % ring_words] = frags[pkt * words_per_packet + w];
  asm volatile("fence.proxy.alias;" ::: "memory");  // order the writes via `front` before reads via `back`
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t sum = 0;
    for (uint32_t w = 0; w < words_per_packet; ++w) sum ^= back[(start + w) % ring_words] * (w + 1);
    checksums[pkt] = sum;
  }
}

int main() {
  if (cudaSetDevice(0) != cudaSuccess || cudaFree(0) != cudaSuccess) return 1;

  const uint32_t packets = 512, words = 1024;
  VmmMirror ring = mirror_create(size_t(1) << 21, 0);
  const uint32_t ring_words = static_cast<uint32_t>(ring.size / sizeof(uint32_t));

  uint32_t *h_frags, *h_offsets, *h_sums;
  cudaMallocHost(&h_frags, size_t(packets) * words * sizeof(uint32_t));
  cudaMallocHost(&h_offsets, packets * sizeof(uint32_t));
  cudaMallocHost(&h_sums, packets * sizeof(uint32_t));
  for (size_t i = 0; i < size_t(packets) * words; ++i) h_frags[i] = static_cast<uint32_t>(i * 2654435761u);
  // packets are laid out back to back from word 17, so the last one wraps around the ring's end
  for (uint32_t p = 0; p < packets; ++p) h_offsets[p] = (p * words + 17) % ring_words;

  uint32_t *d_frags, *d_offsets, *d_sums;
  cudaMalloc(&d_frags, size_t(packets) * words * sizeof(uint32_t));
  cudaMalloc(&d_offsets, packets * sizeof(uint32_t));
  cudaMalloc(&d_sums, packets * sizeof(uint32_t));

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemcpyAsync(d_frags, h_frags, size_t(packets) * words * sizeof(uint32_t), cudaMemcpyHostToDevice, s);
  cudaMemcpyAsync(d_offsets, h_offsets, packets * sizeof(uint32_t), cudaMemcpyHostToDevice, s);
  reassemble<<<packets, 256, 0, s>>>(reinterpret_cast<uint32_t*>(ring.base),
                                     reinterpret_cast<const uint32_t*>(ring.base + ring.size),
                                     ring_words, d_frags, d_offsets, words, d_sums);
  cudaMemcpyAsync(h_sums, d_sums, packets * sizeof(uint32_t), cudaMemcpyDeviceToHost, s);
  const cudaError_t err = cudaStreamSynchronize(s);

  uint32_t folded = 0;
  if (err == cudaSuccess)
    for (uint32_t p = 0; p < packets; ++p) folded ^= h_sums[p];
  std::printf("%s: folded checksum %08x\n", cudaGetErrorString(err), folded);

  cudaStreamDestroy(s);
  mirror_destroy(ring);
  cudaFree(d_sums);
  cudaFree(d_offsets);
  cudaFree(d_frags);
  cudaFreeHost(h_sums);
  cudaFreeHost(h_offsets);
  cudaFreeHost(h_frags);
  return err == cudaSuccess ? 0 : 1;
}

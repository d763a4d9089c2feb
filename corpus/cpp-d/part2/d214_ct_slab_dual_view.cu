// case: a CT reconstruction maps one physical slab at two reservations (a "recon" view the backprojector writes and a "QA" view the quality-check path reads); one kernel writes each voxel through the first view and then reads it back through the second without fence.proxy.alias.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) { std::fprintf(stderr, "%s: %d\n", #call, (int)r_); std::exit(1); } \
  } while (0)

constexpr int kDim = 256;       // voxels per slice edge
constexpr int kAngles = 180;

__global__ void backproject_with_qa(float* recon, const float* qa_view, const float* sino, int slice,
                                    unsigned int* max_bits) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= kDim) return;
  float acc = 0.f;
  for (int a = 0; a < kAngles; ++a) {
    float s, c;
    __sincosf(a * 3.14159265f / kAngles, &s, &c);
    int det = static_cast<int>((x - kDim / 2) * c + (y - kDim / 2) * s) + kDim / 2;
    if (det >= 0 && det < kDim) acc += sino[a * kDim + det];
  }
  size_t v = (size_t)slice * kDim * kDim + (size_t)y * kDim + x;
  recon[v] = fmaxf(acc / kAngles, 0.f);
  float seen = qa_view[v];  // QA reads what was just written, through the other mapping
  atomicMax(max_bits, __float_as_uint(seen));
}

int main() {
  CU_CHECK(cuInit(0));
  cudaSetDevice(0);
  cudaFree(nullptr);

  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t gran = 0;
  CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const int slices = 16;
  size_t bytes = (size_t)slices * kDim * kDim * sizeof(float);
  bytes = (bytes + gran - 1) / gran * gran;

  CUmemGenericAllocationHandle slab;
  CUdeviceptr recon_va = 0, qa_va = 0;
  CU_CHECK(cuMemCreate(&slab, bytes, &prop, 0));
  CU_CHECK(cuMemAddressReserve(&recon_va, bytes, 0, 0, 0));
  CU_CHECK(cuMemAddressReserve(&qa_va, bytes, 0, 0, 0));
  CU_CHECK(cuMemMap(recon_va, bytes, 0, slab, 0));
  CU_CHECK(cuMemMap(qa_va, bytes, 0, slab, 0));
  CUmemAccessDesc acc = {};
  acc.location = prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cuMemSetAccess(recon_va, bytes, &acc, 1));
  CU_CHECK(cuMemSetAccess(qa_va, bytes, &acc, 1));

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *h_sino = nullptr, *d_sino = nullptr;
  unsigned int *d_max = nullptr, *h_max = nullptr;
  cudaMallocHost(&h_sino, kAngles * kDim * sizeof(float));
  cudaMalloc(&d_sino, kAngles * kDim * sizeof(float));
  cudaMalloc(&d_max, sizeof(unsigned int));
  cudaMallocHost(&h_max, sizeof(unsigned int));

  cudaMemsetAsync(d_max, 0, sizeof(unsigned int), s);
  for (int z = 0; z < slices; ++z) {
    cudaStreamSynchronize(s);  // h_sino is refilled below
    for (int i = 0; i < kAngles * kDim; ++i) h_sino[i] = 1.0f + 0.01f * ((i + z) % 97);
    cudaMemcpyAsync(d_sino, h_sino, kAngles * kDim * sizeof(float), cudaMemcpyHostToDevice, s);
    dim3 grid((kDim + 127) / 128, kDim);
    backproject_with_qa<<<grid, 128, 0, s>>>(reinterpret_cast<float*>(recon_va),  // EXPECT: unfenced_vmm_alias
                                              reinterpret_cast<const float*>(qa_va), d_sino, z, d_max);
  }
  cudaMemcpyAsync(h_max, d_max, sizeof(unsigned int), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  unsigned int bits = *h_max;
  float peak;
  std::memcpy(&peak, &bits, sizeof(float));
  std::printf("peak attenuation %.4f\n", peak);

  CU_CHECK(cuMemUnmap(qa_va, bytes));
  CU_CHECK(cuMemUnmap(recon_va, bytes));
  CU_CHECK(cuMemRelease(slab));
  CU_CHECK(cuMemAddressFree(qa_va, bytes));
  CU_CHECK(cuMemAddressFree(recon_va, bytes));
  cudaFreeHost(h_max);
  cudaFree(d_max);
  cudaFree(d_sino);
  cudaFreeHost(h_sino);
  cudaStreamDestroy(s);
  return 0;
}

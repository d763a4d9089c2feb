// case: ocean-wave height field in one VMM allocation mapped at two reservations (a solver view and a render view); the solver kernel writes through one view on the solver stream while the shading kernel reads through the other on the render stream, with no event between the streams
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      std::fprintf(stderr, "%s failed (%d)\n", #call, int(r_));                 \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)
#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));   \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void advance_heights(float* height, int nx, int ny, float t) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  height[y * nx + x] = 0.5f * __sinf(0.05f * x + t) + 0.3f * __cosf(0.07f * y - 1.3f * t);
}

__global__ void shade(const float* height, uchar4* rgba, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
  float dx = height[y * nx + x + 1] - height[y * nx + x - 1];
  float dy = height[(y + 1) * nx + x] - height[(y - 1) * nx + x];
  float l = fminf(fmaxf(0.5f + 2.f * (dx + dy), 0.f), 1.f);
  rgba[y * nx + x] = make_uchar4(0, (unsigned char)(80 * l), (unsigned char)(255 * l), 255);
}

struct SharedField {
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr solver_va = 0;
  CUdeviceptr render_va = 0;
  size_t bytes = 0;
};

static SharedField make_shared_field(size_t want, int device) {
  SharedField f;
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t gran = 0;
  CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  f.bytes = (want + gran - 1) / gran * gran;
  CU_CHECK(cuMemCreate(&f.handle, f.bytes, &prop, 0));
  CU_CHECK(cuMemAddressReserve(&f.solver_va, f.bytes, 0, 0, 0));
  CU_CHECK(cuMemAddressReserve(&f.render_va, f.bytes, 0, 0, 0));
  CU_CHECK(cuMemMap(f.solver_va, f.bytes, 0, f.handle, 0));
  CU_CHECK(cuMemMap(f.render_va, f.bytes, 0, f.handle, 0));
  CUmemAccessDesc acc = {};
  acc.location = prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cuMemSetAccess(f.solver_va, f.bytes, &acc, 1));
  CU_CHECK(cuMemSetAccess(f.render_va, f.bytes, &acc, 1));
  return f;
}

static void destroy_shared_field(SharedField& f) {
  CU_CHECK(cuMemUnmap(f.render_va, f.bytes));
  CU_CHECK(cuMemUnmap(f.solver_va, f.bytes));
  CU_CHECK(cuMemRelease(f.handle));
  CU_CHECK(cuMemAddressFree(f.render_va, f.bytes));
  CU_CHECK(cuMemAddressFree(f.solver_va, f.bytes));
}

int main() {
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));
  const int nx = 2048, ny = 2048;
  cudaStream_t solver, render;
  CUDA_CHECK(cudaStreamCreateWithFlags(&solver, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&render, cudaStreamNonBlocking));

  SharedField field = make_shared_field(size_t(nx) * ny * sizeof(float), 0);
  uchar4* d_rgba = nullptr;
  uchar4* h_rgba = nullptr;
  CUDA_CHECK(cudaMalloc(&d_rgba, size_t(nx) * ny * sizeof(uchar4)));
  CUDA_CHECK(cudaMallocHost(&h_rgba, size_t(nx) * ny * sizeof(uchar4)));

  dim3 block(16, 16), grid((nx + 15) / 16, (ny + 15) / 16);
  for (int frame = 0; frame < 60; ++frame) {
    advance_heights<<<grid, block, 0, solver>>>(reinterpret_cast<float*>(field.solver_va), nx, ny, 0.016f * frame);
    shade<<<grid, block, 0, render>>>(reinterpret_cast<const float*>(field.render_va), d_rgba, nx, ny);  // EXPECT: unfenced_vmm_alias
    CUDA_CHECK(cudaMemcpyAsync(h_rgba, d_rgba, size_t(nx) * ny * sizeof(uchar4), cudaMemcpyDeviceToHost, render));
    CUDA_CHECK(cudaStreamSynchronize(render));
    CUDA_CHECK(cudaStreamSynchronize(solver));
    std::printf("frame %d centre blue %u\n", frame, unsigned(h_rgba[(ny / 2) * nx + nx / 2].z));
  }

  destroy_shared_field(field);
  cudaFreeHost(h_rgba);
  cudaFree(d_rgba);
  cudaStreamDestroy(render);
  cudaStreamDestroy(solver);
  return 0;
}

// case: particle density grid in one VMM allocation mapped at two reservations (deposit view, sampling view); the deposit kernel writes through one view on the physics stream, an event is recorded and the render stream waits on it before the sampling kernel reads through the other view (near-miss)
// expect: none
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

__global__ void deposit(float* grid, int cells, float t) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cells) grid[c] = 1.f + __sinf(0.001f * c + t);
}

__global__ void sample_column(const float* grid, int nx, int ny, float* column) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= ny) return;
  float s = 0.f;
  for (int x = 0; x < nx; ++x) s += grid[y * nx + x];
  column[y] = s;
}

class DualViewGrid {
 public:
  DualViewGrid(size_t bytes_wanted, int device) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    bytes_ = (bytes_wanted + gran - 1) / gran * gran;
    CU_CHECK(cuMemCreate(&handle_, bytes_, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&write_va_, bytes_, 0, 0, 0));
    CU_CHECK(cuMemAddressReserve(&read_va_, bytes_, 0, 0, 0));
    CU_CHECK(cuMemMap(write_va_, bytes_, 0, handle_, 0));
    CU_CHECK(cuMemMap(read_va_, bytes_, 0, handle_, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(write_va_, bytes_, &acc, 1));
    CU_CHECK(cuMemSetAccess(read_va_, bytes_, &acc, 1));
  }
  ~DualViewGrid() {
    cuMemUnmap(read_va_, bytes_);
    cuMemUnmap(write_va_, bytes_);
    cuMemRelease(handle_);
    cuMemAddressFree(read_va_, bytes_);
    cuMemAddressFree(write_va_, bytes_);
  }
  float* write_view() const { return reinterpret_cast<float*>(write_va_); }
  const float* read_view() const { return reinterpret_cast<const float*>(read_va_); }

 private:
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr write_va_ = 0, read_va_ = 0;
  size_t bytes_ = 0;
};

int main() {
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));
  const int nx = 1024, ny = 1024;
  cudaStream_t physics, render;
  cudaEvent_t deposited, sampled;
  CUDA_CHECK(cudaStreamCreateWithFlags(&physics, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&render, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&deposited, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&sampled, cudaEventDisableTiming));
  float *d_col = nullptr, *h_col = nullptr;
  CUDA_CHECK(cudaMalloc(&d_col, ny * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_col, ny * sizeof(float)));
  {
    DualViewGrid grid(size_t(nx) * ny * sizeof(float), 0);
    for (int frame = 0; frame < 120; ++frame) {
      // the next deposit must not overwrite the grid while the previous sampling reads it
      CUDA_CHECK(cudaStreamWaitEvent(physics, sampled, 0));
      deposit<<<(nx * ny + 255) / 256, 256, 0, physics>>>(grid.write_view(), nx * ny, 0.01f * frame);
      CUDA_CHECK(cudaEventRecord(deposited, physics));
      CUDA_CHECK(cudaStreamWaitEvent(render, deposited, 0));
      sample_column<<<(ny + 127) / 128, 128, 0, render>>>(grid.read_view(), nx, ny, d_col);
      CUDA_CHECK(cudaEventRecord(sampled, render));
      CUDA_CHECK(cudaMemcpyAsync(h_col, d_col, ny * sizeof(float), cudaMemcpyDeviceToHost, render));
      CUDA_CHECK(cudaStreamSynchronize(render));
      if (frame % 30 == 0) std::printf("frame %d column[0] = %f\n", frame, h_col[0]);
    }
    CUDA_CHECK(cudaStreamSynchronize(physics));
    CUDA_CHECK(cudaStreamSynchronize(render));
  }
  cudaFreeHost(h_col);
  cudaFree(d_col);
  cudaEventDestroy(sampled);
  cudaEventDestroy(deposited);
  cudaStreamDestroy(render);
  cudaStreamDestroy(physics);
  return 0;
}

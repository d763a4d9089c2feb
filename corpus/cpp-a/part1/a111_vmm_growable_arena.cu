// case: growable device arena on a VMM reservation for a particle simulation; grow() grants access to each new chunk, but the constructor maps the first chunk without cuMemSetAccess, and the first kernel writes it
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* s_ = nullptr;                                                 \
      cuGetErrorName(r_, &s_);                                                  \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?");    \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)
#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct Particle {
  float x, y, z, vx, vy, vz;
};

// Seeds the particles and integrates `steps` gravity steps; writes the
// lowest z reached per block to `min_z`.
__global__ void seed_and_integrate(Particle* p, size_t n, unsigned seed, int steps, float dt, float* min_z) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  unsigned h = (static_cast<unsigned>(i) * 2654435761u) ^ seed;
  Particle q{(h & 1023) / 1023.f, ((h >> 10) & 1023) / 1023.f, ((h >> 20) & 1023) / 1023.f, 0.f, 0.f, 0.f};
  for (int s = 0; s < steps; ++s) {
    q.vz -= 9.81f * dt;
    q.x += q.vx * dt;
    q.y += q.vy * dt;
    q.z += q.vz * dt;
  }
  p[i] = q;
  if (threadIdx.x == 0) min_z[blockIdx.x] = q.z;
}

class DeviceArena {
 public:
  DeviceArena(size_t max_bytes, size_t first_chunk, int device) : device_(device) {
    prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop_.location.id = device;
    CU_CHECK(cuMemGetAllocationGranularity(&gran_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    reserved_ = round_up(max_bytes);
    CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));

    const size_t bytes = round_up(first_chunk);
    CUmemGenericAllocationHandle h = 0;
    CU_CHECK(cuMemCreate(&h, bytes, &prop_, 0));
    CU_CHECK(cuMemMap(base_, bytes, 0, h, 0));
    chunks_.push_back({h, 0, bytes});
    mapped_ = bytes;
  }

  ~DeviceArena() {
    for (const Chunk& c : chunks_) {
      cuMemUnmap(base_ + c.offset, c.bytes);
      cuMemRelease(c.handle);
    }
    cuMemAddressFree(base_, reserved_);
  }

  // Maps another chunk right after the mapped part and makes it accessible.
  bool grow(size_t extra) {
    const size_t bytes = round_up(extra);
    if (mapped_ + bytes > reserved_) return false;
    CUmemGenericAllocationHandle h = 0;
    CU_CHECK(cuMemCreate(&h, bytes, &prop_, 0));
    CU_CHECK(cuMemMap(base_ + mapped_, bytes, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop_.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base_ + mapped_, bytes, &acc, 1));
    chunks_.push_back({h, mapped_, bytes});
    mapped_ += bytes;
    return true;
  }

  template <typename T>
  T* data() const { return reinterpret_cast<T*>(base_); }
  size_t mapped_bytes() const { return mapped_; }

 private:
  struct Chunk {
    CUmemGenericAllocationHandle handle;
    size_t offset;
    size_t bytes;
  };
  size_t round_up(size_t b) const { return (b + gran_ - 1) / gran_ * gran_; }

  int device_;
  CUmemAllocationProp prop_ = {};
  size_t gran_ = 0;
  CUdeviceptr base_ = 0;
  size_t reserved_ = 0;
  size_t mapped_ = 0;
  std::vector<Chunk> chunks_;
};

int main() {
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));
  cudaStream_t sim;
  CUDA_CHECK(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));
  {
    DeviceArena arena(size_t(1) << 32, size_t(64) << 20, 0);
    Particle* particles = arena.data<Particle>();
    const size_t n = arena.mapped_bytes() / sizeof(Particle);
    const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    std::vector<float> min_z(blocks);
    float* d_min_z = nullptr;
    CUDA_CHECK(cudaMalloc(&d_min_z, blocks * sizeof(float)));
    seed_and_integrate<<<blocks, 256, 0, sim>>>(particles, n, 1234u, 100, 1e-3f, d_min_z);  // EXPECT: vmm_lifecycle
    CUDA_CHECK(cudaStreamSynchronize(sim));
    CUDA_CHECK(cudaMemcpy(min_z.data(), d_min_z, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("simulated %zu particles, first block min z %f\n", n, min_z[0]);
    CUDA_CHECK(cudaFree(d_min_z));
  }
  CUDA_CHECK(cudaStreamDestroy(sim));
  return 0;
}

// case: mesh/vertex streamer uploading through a write-combined staging ring; the host only writes the write-combined memory, and waits on each slot's event before refilling it (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "upload: %s\n", cudaGetErrorString(e_));             \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct Vertex {
  float px, py, pz;
  float nx, ny, nz;
  float u, v;
};

__global__ void transform_vertices(const Vertex* __restrict__ in, Vertex* __restrict__ out, size_t count,
                                   float4 row0, float4 row1, float4 row2) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  Vertex v = in[i];
  Vertex o = v;
  o.px = row0.x * v.px + row0.y * v.py + row0.z * v.pz + row0.w;
  o.py = row1.x * v.px + row1.y * v.py + row1.z * v.pz + row1.w;
  o.pz = row2.x * v.px + row2.y * v.py + row2.z * v.pz + row2.w;
  out[i] = o;
}

class VertexStreamer {
 public:
  static constexpr int kSlots = 2;

  VertexStreamer(size_t chunk_vertices, Vertex* d_dest) : chunk_(chunk_vertices), d_dest_(d_dest) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (int s = 0; s < kSlots; ++s) {
      CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&staging_[s]), chunk_ * sizeof(Vertex),
                               cudaHostAllocWriteCombined));
      CUDA_CHECK(cudaMalloc(&d_raw_[s], chunk_ * sizeof(Vertex)));
      CUDA_CHECK(cudaEventCreateWithFlags(&slot_free_[s], cudaEventDisableTiming));
    }
  }

  ~VertexStreamer() {
    cudaStreamSynchronize(stream_);
    for (int s = 0; s < kSlots; ++s) {
      cudaEventDestroy(slot_free_[s]);
      cudaFree(d_raw_[s]);
      cudaFreeHost(staging_[s]);
    }
    cudaStreamDestroy(stream_);
  }

  void upload(const std::vector<Vertex>& mesh, const float4 (&xf)[3]) {
    size_t chunk_index = 0;
    for (size_t first = 0; first < mesh.size(); first += chunk_, ++chunk_index) {
      const int slot = static_cast<int>(chunk_index % kSlots);
      const size_t count = std::min(chunk_, mesh.size() - first);
      // the copy that last read this slot must be done before the host overwrites it
      CUDA_CHECK(cudaEventSynchronize(slot_free_[slot]));
      Vertex* dst = staging_[slot];
      for (size_t i = 0; i < count; ++i) dst[i] = mesh[first + i];  // sequential writes: what WC memory is for
      CUDA_CHECK(cudaMemcpyAsync(d_raw_[slot], dst, count * sizeof(Vertex), cudaMemcpyHostToDevice, stream_));
      CUDA_CHECK(cudaEventRecord(slot_free_[slot], stream_));
      transform_vertices<<<(count + 255) / 256, 256, 0, stream_>>>(d_raw_[slot], d_dest_ + first, count, xf[0], xf[1], xf[2]);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  size_t chunk_;
  Vertex* d_dest_;
  cudaStream_t stream_ = nullptr;
  Vertex* staging_[kSlots] = {};
  Vertex* d_raw_[kSlots] = {};
  cudaEvent_t slot_free_[kSlots] = {};
};

int main() {
  const size_t n = 3'000'000;
  std::vector<Vertex> mesh(n);
  for (size_t i = 0; i < n; ++i) mesh[i] = Vertex{float(i % 1000), float(i / 1000), 0.f, 0.f, 0.f, 1.f, 0.f, 0.f};
  Vertex* d_mesh = nullptr;
  CUDA_CHECK(cudaMalloc(&d_mesh, n * sizeof(Vertex)));
  {
    VertexStreamer streamer(1 << 18, d_mesh);
    const float4 xf[3] = {make_float4(1, 0, 0, 5), make_float4(0, 1, 0, -2), make_float4(0, 0, 1, 0)};
    streamer.upload(mesh, xf);
  }
  CUDA_CHECK(cudaFree(d_mesh));
  std::puts("uploaded");
  return 0;
}

// case: a mesh upload helper that stages vertices through a cudaMallocHost buffer for an async copy and returns without cudaFreeHost, losing the pinned allocation with its local pointer
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

struct Vertex {
  float x, y, z;
  float nx, ny, nz;
};

__global__ void transform_vertices(Vertex *v, int n, float scale, float3 offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    v[i].x = v[i].x * scale + offset.x;
    v[i].y = v[i].y * scale + offset.y;
    v[i].z = v[i].z * scale + offset.z;
  }
}

static void upload_vertices(const std::vector<Vertex> &mesh, Vertex *d_vertices, cudaStream_t stream) {
  const size_t bytes = mesh.size() * sizeof(Vertex);
  Vertex *staging = nullptr;
  CUDA_CHECK(cudaMallocHost(&staging, bytes)); // EXPECT: device_memory_leak
  memcpy(staging, mesh.data(), bytes);
  CUDA_CHECK(cudaMemcpyAsync(d_vertices, staging, bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

int main() {
  const int n = 500000;
  std::vector<Vertex> mesh(n);
  for (int i = 0; i < n; ++i) mesh[i] = {(float)(i % 100), (float)(i / 100 % 100), (float)(i / 10000), 0.f, 0.f, 1.f};

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  Vertex *d_vertices;
  CUDA_CHECK(cudaMalloc(&d_vertices, n * sizeof(Vertex)));

  upload_vertices(mesh, d_vertices, stream);
  transform_vertices<<<(n + 255) / 256, 256, 0, stream>>>(d_vertices, n, 0.5f, make_float3(1.f, 2.f, 3.f));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(mesh.data(), d_vertices, n * sizeof(Vertex), cudaMemcpyDeviceToHost));
  printf("vertex 12345 -> (%.2f, %.2f, %.2f)\n", mesh[12345].x, mesh[12345].y, mesh[12345].z);

  CUDA_CHECK(cudaFree(d_vertices));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}

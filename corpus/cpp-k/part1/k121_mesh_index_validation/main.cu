// case: A vertex-normal pass uploads a mesh through mesh_upload() (mesh_alloc.cu, which cudaMallocs every field) and then validates the index buffer on the host by reading mesh.d_indices directly, a host dereference of device memory allocated in the other file.
// expect: host_deref_device_ptr=1
#include "mesh.h"

#include <cmath>
#include <cstdio>

__global__ void accumulate_normals(const float3* __restrict__ v, const uint32_t* __restrict__ idx,
                                   float3* __restrict__ n, int triangles) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= triangles) return;
  uint32_t a = idx[3 * t], b = idx[3 * t + 1], c = idx[3 * t + 2];
  float3 e1 = make_float3(v[b].x - v[a].x, v[b].y - v[a].y, v[b].z - v[a].z);
  float3 e2 = make_float3(v[c].x - v[a].x, v[c].y - v[a].y, v[c].z - v[a].z);
  float3 f = make_float3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z,
                         e1.x * e2.y - e1.y * e2.x);
  const uint32_t corners[3] = {a, b, c};
  for (int j = 0; j < 3; ++j) {
    const uint32_t k = corners[j];
    atomicAdd(&n[k].x, f.x);
    atomicAdd(&n[k].y, f.y);
    atomicAdd(&n[k].z, f.z);
  }
}

static bool indices_in_range(const DeviceMesh& mesh) {
  const size_t count = size_t(mesh.num_triangles) * 3;
  for (size_t i = 0; i < count; ++i) {
    if (mesh.d_indices[i] >= static_cast<uint32_t>(mesh.num_vertices)) {  // EXPECT: host_deref_device_ptr
      std::fprintf(stderr, "index %zu out of range\n", i);
      return false;
    }
  }
  return true;
}

static void make_grid(int nx, int ny, std::vector<float3>& verts, std::vector<uint32_t>& idx) {
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      verts.push_back(make_float3(float(x), float(y), 0.1f * std::sin(0.3f * x) * std::cos(0.2f * y)));
  for (int y = 0; y + 1 < ny; ++y)
    for (int x = 0; x + 1 < nx; ++x) {
      uint32_t i0 = y * nx + x, i1 = i0 + 1, i2 = i0 + nx, i3 = i2 + 1;
      idx.insert(idx.end(), {i0, i1, i2, i1, i3, i2});
    }
}

int main() {
  std::vector<float3> verts;
  std::vector<uint32_t> idx;
  make_grid(512, 512, verts, idx);

  DeviceMesh mesh;
  if (mesh_upload(mesh, verts, idx) != cudaSuccess) {
    std::fprintf(stderr, "upload failed\n");
    return 1;
  }
  if (!indices_in_range(mesh)) {
    mesh_release(mesh);
    return 1;
  }

  cudaMemset(mesh.d_normals, 0, size_t(mesh.num_vertices) * sizeof(float3));
  accumulate_normals<<<(mesh.num_triangles + 127) / 128, 128>>>(mesh.d_vertices, mesh.d_indices,
                                                                mesh.d_normals, mesh.num_triangles);
  std::vector<float3> normals(mesh.num_vertices);
  cudaError_t err = cudaMemcpy(normals.data(), mesh.d_normals, normals.size() * sizeof(float3),
                               cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) {
    const float3 c = normals[256 * 512 + 256];
    std::printf("normal at centre: (%.4f, %.4f, %.4f)\n", c.x, c.y, c.z);
  }
  mesh_release(mesh);
  return err == cudaSuccess ? 0 : 1;
}

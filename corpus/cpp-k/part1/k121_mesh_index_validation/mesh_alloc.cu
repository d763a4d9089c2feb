#include "mesh.h"

cudaError_t mesh_upload(DeviceMesh& mesh, const std::vector<float3>& vertices,
                        const std::vector<uint32_t>& indices) {
  mesh.num_vertices = static_cast<int>(vertices.size());
  mesh.num_triangles = static_cast<int>(indices.size() / 3);
  cudaError_t err = cudaMalloc(&mesh.d_vertices, vertices.size() * sizeof(float3));
  if (err == cudaSuccess) err = cudaMalloc(&mesh.d_indices, indices.size() * sizeof(uint32_t));
  if (err == cudaSuccess) err = cudaMalloc(&mesh.d_normals, vertices.size() * sizeof(float3));
  if (err == cudaSuccess)
    err = cudaMemcpy(mesh.d_vertices, vertices.data(), vertices.size() * sizeof(float3),
                     cudaMemcpyHostToDevice);
  if (err == cudaSuccess)
    err = cudaMemcpy(mesh.d_indices, indices.data(), indices.size() * sizeof(uint32_t),
                     cudaMemcpyHostToDevice);
  if (err != cudaSuccess) mesh_release(mesh);
  return err;
}

void mesh_release(DeviceMesh& mesh) {
  cudaFree(mesh.d_normals);
  cudaFree(mesh.d_indices);
  cudaFree(mesh.d_vertices);
  mesh = DeviceMesh{};
}

#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <vector>

// A triangle mesh resident on the device. All pointers are cudaMalloc'd by mesh_upload().
struct DeviceMesh {
  float3* d_vertices = nullptr;
  uint32_t* d_indices = nullptr;  // 3 per triangle
  float3* d_normals = nullptr;    // per vertex
  int num_vertices = 0;
  int num_triangles = 0;
};

cudaError_t mesh_upload(DeviceMesh& mesh, const std::vector<float3>& vertices,
                        const std::vector<uint32_t>& indices);
void mesh_release(DeviceMesh& mesh);

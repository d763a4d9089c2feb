#pragma once
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

struct HostMesh {
    std::vector<float3> verts;
    std::vector<int3> tris;
};

struct DeviceMesh {
    float3* verts = nullptr;
    int3* tris = nullptr;
    int num_verts = 0;
    int num_tris = 0;
};

inline void mesh_free(DeviceMesh& m) {
    cudaFree(m.verts);
    cudaFree(m.tris);
    m.verts = nullptr;
    m.tris = nullptr;
}

inline HostMesh make_grid_mesh(int nx, int ny) {
    HostMesh m;
    for (int y = 0; y <= ny; ++y)
        for (int x = 0; x <= nx; ++x) m.verts.push_back(make_float3((float)x, (float)y, 0.0f));
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
            int v = y * (nx + 1) + x;
            m.tris.push_back(make_int3(v, v + 1, v + nx + 1));
            m.tris.push_back(make_int3(v + 1, v + nx + 2, v + nx + 1));
        }
    return m;
}

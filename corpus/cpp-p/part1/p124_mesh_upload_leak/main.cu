// case: upload_mesh allocates the vertex buffer, then the triangle buffer; when the second cudaMalloc fails it returns the error without freeing the vertex buffer, whose only pointer is a local (the other paths free both or hand both to the DeviceMesh the caller frees with mesh_free from mesh.h).
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include "mesh.h"

__global__ void tri_area(const float3* v, const int3* t, float* area, int nt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nt) return;
    float3 a = v[t[i].x], b = v[t[i].y], c = v[t[i].z];
    float ux = b.x - a.x, uy = b.y - a.y, wx = c.x - a.x, wy = c.y - a.y;
    area[i] = 0.5f * fabsf(ux * wy - uy * wx);
}

static cudaError_t upload_mesh(const HostMesh& hm, DeviceMesh* out) {
    float3* d_v = nullptr;
    int3* d_t = nullptr;
    size_t vbytes = hm.verts.size() * sizeof(float3);
    size_t tbytes = hm.tris.size() * sizeof(int3);

    cudaError_t err = cudaMalloc(&d_v, vbytes);  // EXPECT: device_memory_leak
    if (err != cudaSuccess) return err;
    err = cudaMalloc(&d_t, tbytes);
    if (err != cudaSuccess) return err;  // d_v is lost here

    err = cudaMemcpy(d_v, hm.verts.data(), vbytes, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) err = cudaMemcpy(d_t, hm.tris.data(), tbytes, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) {
        cudaFree(d_v);
        cudaFree(d_t);
        return err;
    }
    out->verts = d_v;
    out->tris = d_t;
    out->num_verts = (int)hm.verts.size();
    out->num_tris = (int)hm.tris.size();
    return cudaSuccess;
}

int main() {
    HostMesh hm = make_grid_mesh(512, 512);
    DeviceMesh dm;
    cudaError_t err = upload_mesh(hm, &dm);
    if (err != cudaSuccess) {
        fprintf(stderr, "upload failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    float* d_area;
    if (cudaMalloc(&d_area, dm.num_tris * sizeof(float)) != cudaSuccess) return 1;
    tri_area<<<(dm.num_tris + 255) / 256, 256>>>(dm.verts, dm.tris, d_area, dm.num_tris);
    std::vector<float> area(dm.num_tris);
    cudaMemcpy(area.data(), d_area, dm.num_tris * sizeof(float), cudaMemcpyDeviceToHost);
    double total = 0.0;
    for (float a : area) total += a;
    printf("total area %f\n", total);

    cudaFree(d_area);
    mesh_free(dm);
    return 0;
}

// case: mesh uploader with a write-combined staging buffer that the CPU only writes; the CPU checksum that would read it sits under MESH_DEBUG_STAGING_CHECKSUM, which upload_config.h leaves commented out, and the enabled readback check reads a separate cudaMallocHost buffer after a stream synchronize: correct in the default build.
// expect: none
#include "upload_config.h"
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

struct Vertex { float px, py, pz, nx, ny, nz, u, v; };

static Vertex make_vertex(int mesh, size_t i)
{
    float t = 0.001f * (float)i + mesh;
    return Vertex{t, 2.f * t, -t, 0.f, 1.f, 0.f, (float)(i % 64) / 64.f, (float)(i / 64 % 64) / 64.f};
}

int main()
{
    const size_t max_verts = MESH_STAGING_BYTES / sizeof(Vertex);
    Vertex* staging = nullptr;
    CUDA_CHECK(cudaHostAlloc((void**)&staging, MESH_STAGING_BYTES, cudaHostAllocWriteCombined));
#if MESH_READBACK_VERIFY
    Vertex* readback = nullptr;
    CUDA_CHECK(cudaMallocHost((void**)&readback, MESH_STAGING_BYTES));
#endif
    Vertex* d_verts = nullptr;
    CUDA_CHECK(cudaMalloc(&d_verts, MESH_STAGING_BYTES));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    int bad_meshes = 0;
    for (int mesh = 0; mesh < 8; ++mesh) {
        const size_t n = max_verts - (size_t)mesh * 1000;
        for (size_t i = 0; i < n; ++i) staging[i] = make_vertex(mesh, i); // write-only

#ifdef MESH_DEBUG_STAGING_CHECKSUM
        uint64_t sum = 0;
        for (size_t i = 0; i < n; ++i) sum += (uint64_t)(staging[i].px * 1000.f);
        printf("mesh %d staging checksum %llu\n", mesh, (unsigned long long)sum);
#endif

        CUDA_CHECK(cudaMemcpyAsync(d_verts, staging, n * sizeof(Vertex), cudaMemcpyHostToDevice, s));
#if MESH_READBACK_VERIFY
        CUDA_CHECK(cudaMemcpyAsync(readback, d_verts, n * sizeof(Vertex), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        for (size_t i = 0; i < n; i += 997) {
            Vertex want = make_vertex(mesh, i);
            if (readback[i].px != want.px || readback[i].u != want.u) { ++bad_meshes; break; }
        }
#else
        CUDA_CHECK(cudaStreamSynchronize(s)); // the staging buffer is rewritten next iteration
#endif
    }
    printf("mesh upload: 8 meshes, %d failed verification\n", bad_meshes);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_verts));
#if MESH_READBACK_VERIFY
    CUDA_CHECK(cudaFreeHost(readback));
#endif
    CUDA_CHECK(cudaFreeHost(staging));
    return 0;
}

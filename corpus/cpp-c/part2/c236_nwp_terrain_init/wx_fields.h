#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

// Uncomment to keep prognostic fields in unified memory (debug builds on the
// workstation; the cluster build uses plain device memory).
// #define WX_USE_MANAGED

#define WX_CUDA(x)                                                                        \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "wx: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

struct WxFields {
    int nx, ny, nz;
    float* theta;     // potential temperature, nx*ny*nz
    float* qv;        // water vapour, nx*ny*nz
    float* zsfc;      // terrain height, nx*ny
};

inline float* wx_alloc(size_t count) {
    float* p = nullptr;
#ifdef WX_USE_MANAGED
    WX_CUDA(cudaMallocManaged(&p, count * sizeof(float)));
#else
    WX_CUDA(cudaMalloc(&p, count * sizeof(float)));
#endif
    return p;
}

inline void wx_fields_create(WxFields& f, int nx, int ny, int nz) {
    f.nx = nx; f.ny = ny; f.nz = nz;
    const size_t n3 = (size_t)nx * ny * nz, n2 = (size_t)nx * ny;
    f.theta = wx_alloc(n3);
    f.qv = wx_alloc(n3);
    f.zsfc = wx_alloc(n2);
}

inline void wx_fields_destroy(WxFields& f) {
    WX_CUDA(cudaFree(f.zsfc));
    WX_CUDA(cudaFree(f.qv));
    WX_CUDA(cudaFree(f.theta));
}

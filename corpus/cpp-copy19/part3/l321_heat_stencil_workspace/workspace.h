#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NX 512
#define NY 512

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err__ = (call);                                           \
        if (err__ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(err__));                               \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

struct Workspace {
    float* d_u;
    float* d_v;
};

inline void workspace_init(Workspace* ws, const float* h_init) {
    const size_t bytes = sizeof(float) * NX * NY;
    CUDA_CHECK(cudaMalloc(&ws->d_u, bytes));
    CUDA_CHECK(cudaMalloc(&ws->d_v, bytes));
    CUDA_CHECK(cudaMemcpy(ws->d_u, h_init, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(ws->d_v, h_init, bytes, cudaMemcpyHostToDevice));
}

inline void workspace_destroy(Workspace* ws) {
    CUDA_CHECK(cudaFree(ws->d_u));
    CUDA_CHECK(cudaFree(ws->d_v));
    ws->d_u = ws->d_v = nullptr;
}

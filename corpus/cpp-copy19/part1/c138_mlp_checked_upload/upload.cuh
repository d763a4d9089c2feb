#ifndef UPLOAD_CUH
#define UPLOAD_CUH
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define CUDA_TRY(call)                                                      \
    do {                                                                    \
        cudaError_t err = (call);                                           \
        if (err != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
            abort();                                                        \
        }                                                                   \
    } while (0)

// Allocates `count` floats on the device and fills them from `host`.
static float *to_device(const float *host, size_t count)
{
    float *d = NULL;
    CUDA_TRY(cudaMalloc((void **)&d, count * sizeof(float)));
    CUDA_TRY(cudaMemcpy(d, host, count * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

#endif

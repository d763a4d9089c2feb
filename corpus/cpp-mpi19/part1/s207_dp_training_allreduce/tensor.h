// Minimal RAII owner of a float buffer in device memory.
#pragma once
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                    cudaGetErrorString(err_), __FILE__, __LINE__);             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

class DeviceTensor {
public:
    explicit DeviceTensor(size_t n) : n_(n) {
        CHECK(cudaMalloc(&data_, n_ * sizeof(float)));
        CHECK(cudaMemset(data_, 0, n_ * sizeof(float)));
    }
    ~DeviceTensor() { cudaFree(data_); }
    DeviceTensor(const DeviceTensor&) = delete;
    DeviceTensor& operator=(const DeviceTensor&) = delete;

    float* data() { return data_; }
    const float* data() const { return data_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(float); }

private:
    size_t n_;
    float* data_ = nullptr;
};

#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

// A 2-D field in managed memory, so the host can seed it and inspect it directly.
class ManagedGrid {
public:
    ManagedGrid(int nx, int ny) : nx_(nx), ny_(ny) {
        check(cudaMallocManaged(&data_, bytes()), "cudaMallocManaged");
    }
    ~ManagedGrid() { cudaFree(data_); }
    ManagedGrid(const ManagedGrid&) = delete;
    ManagedGrid& operator=(const ManagedGrid&) = delete;

    float* data() { return data_; }
    const float* data() const { return data_; }
    float& at(int x, int y) { return data_[(size_t)y * nx_ + x]; }
    int nx() const { return nx_; }
    int ny() const { return ny_; }
    size_t cells() const { return (size_t)nx_ * ny_; }
    size_t bytes() const { return cells() * sizeof(float); }

private:
    int nx_, ny_;
    float* data_ = nullptr;
};

// Plain device buffer for the scratch fields nobody looks at on the host.
struct DeviceField {
    float* p = nullptr;
    explicit DeviceField(size_t n) { check(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc"); }
    ~DeviceField() { cudaFree(p); }
};

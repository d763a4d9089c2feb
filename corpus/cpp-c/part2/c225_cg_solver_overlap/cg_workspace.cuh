#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

// Overlap the host-side scalar update with the next SpMV (saves a stream bubble per iteration).
#define CG_OVERLAP_DOT 1

#define CUDA_CHECK(x)                                                                 \
    do {                                                                              \
        cudaError_t e_ = (x);                                                         \
        if (e_ != cudaSuccess) {                                                      \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t bytes) : bytes_(bytes) { CUDA_CHECK(cudaMalloc(&raw_, bytes)); }
    virtual ~DeviceBuffer() { cudaFree(raw_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    size_t bytes() const { return bytes_; }

protected:
    void* raw_ = nullptr;
    size_t bytes_;
};

class DeviceVector : public DeviceBuffer {
public:
    explicit DeviceVector(int n) : DeviceBuffer(n * sizeof(double)), n_(n) {}
    double* data() { return static_cast<double*>(raw_); }
    const double* data() const { return static_cast<const double*>(raw_); }
    int size() const { return n_; }

private:
    int n_;
};

// Device-side reduction results and their pinned host mirrors.
struct CgWorkspace {
    DeviceVector r, p, Ap, x;
    DeviceVector d_dots;          // [0] = r.r, [1] = p.Ap
    double* h_dots = nullptr;     // pinned
    cudaStream_t stream = nullptr;

    explicit CgWorkspace(int n) : r(n), p(n), Ap(n), x(n), d_dots(2) {
        CUDA_CHECK(cudaMallocHost(&h_dots, 2 * sizeof(double)));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    }
    ~CgWorkspace() {
        cudaStreamSynchronize(stream);
        cudaStreamDestroy(stream);
        cudaFreeHost(h_dots);
    }
};

// case: a driver-API lattice simulation (cuMemAlloc buffers, cuMemcpyHtoDAsync/cuMemcpyDtoHAsync through cuMemAllocHost staging) has a GRID_DEBUG_DUMP block, enabled in this build, that casts the CUdeviceptr to float* and prints its first cells on the host.
// expect: host_deref_device_ptr=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#define GRID_DEBUG_DUMP 1

#define CU_CHECK(call)                                                              \
    do {                                                                            \
        CUresult r_ = (call);                                                       \
        if (r_ != CUDA_SUCCESS) {                                                   \
            const char* msg_ = nullptr;                                             \
            cuGetErrorString(r_, &msg_);                                            \
            throw std::runtime_error(std::string(#call) + " failed: " + (msg_ ? msg_ : "?")); \
        }                                                                           \
    } while (0)

__global__ void diffuse(float* cells, const float* prev, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    cells[i] = prev[i] + k * (prev[i - 1] - 2.f * prev[i] + prev[i + 1]);
}

class Lattice {
public:
    explicit Lattice(int n) : n_(n), bytes_(sizeof(float) * n) {
        CU_CHECK(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
        CU_CHECK(cuMemAlloc(&cells_, bytes_));
        CU_CHECK(cuMemAlloc(&prev_, bytes_));
        CU_CHECK(cuMemAllocHost(reinterpret_cast<void**>(&staging_), bytes_));
    }
    ~Lattice() {
        cuStreamSynchronize(stream_);
        cuMemFree(cells_);
        cuMemFree(prev_);
        cuMemFreeHost(staging_);
        cuStreamDestroy(stream_);
    }

    void seed() {
        for (int i = 0; i < n_; ++i) staging_[i] = (i == n_ / 2) ? 1000.f : 0.f;
        CU_CHECK(cuMemcpyHtoDAsync(prev_, staging_, bytes_, stream_));
        CU_CHECK(cuMemcpyHtoDAsync(cells_, staging_, bytes_, stream_));
        CU_CHECK(cuStreamSynchronize(stream_));
    }

    void step(int count) {
        for (int s = 0; s < count; ++s) {
            diffuse<<<(n_ + 255) / 256, 256, 0, reinterpret_cast<cudaStream_t>(stream_)>>>(
                reinterpret_cast<float*>(cells_), reinterpret_cast<const float*>(prev_), n_, 0.2f);
            std::swap(cells_, prev_);
        }
        CU_CHECK(cuStreamSynchronize(stream_));
#ifdef GRID_DEBUG_DUMP
        const float* dbg = reinterpret_cast<const float*>(prev_);
        for (int i = n_ / 2 - 2; i <= n_ / 2 + 2; ++i) std::printf("  cell[%d] = %f\n", i, dbg[i]);
#endif
    }

    float center() {
        CU_CHECK(cuMemcpyDtoHAsync(staging_, prev_, bytes_, stream_));
        CU_CHECK(cuStreamSynchronize(stream_));
        return staging_[n_ / 2];
    }

private:
    int n_;
    size_t bytes_;
    CUstream stream_{};
    CUdeviceptr cells_ = 0, prev_ = 0;
    float* staging_ = nullptr;
};

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    {
        Lattice lattice(1 << 20);
        lattice.seed();
        lattice.step(100);
        std::printf("center after 100 steps: %f\n", lattice.center());
    }
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

// case: a DeviceBuffer class allocates a device array and a new[] host mirror in its constructor; its upload() is right but download() swaps destination and source.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cstddef>
#include <cuda_runtime.h>

class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) {
        host_ = new float[n_];
        cudaMalloc(&dev_, n_ * sizeof(float));
    }
    ~DeviceBuffer() {
        cudaFree(dev_);
        delete[] host_;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    void upload() { cudaMemcpy(dev_, host_, n_ * sizeof(float), cudaMemcpyHostToDevice); }
    void download() { cudaMemcpy(dev_, host_, n_ * sizeof(float), cudaMemcpyDeviceToHost); } // EXPECT: memcpy_kind_mismatch

    float* host() { return host_; }
    float* dev() { return dev_; }
    size_t size() const { return n_; }

private:
    size_t n_;
    float* host_ = nullptr;
    float* dev_ = nullptr;
};

__global__ void scale(float* v, float s, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) v[i] *= s;
}

int main() {
    DeviceBuffer buf(1 << 16);
    for (size_t i = 0; i < buf.size(); ++i) buf.host()[i] = (float)i;
    buf.upload();
    scale<<<(unsigned)((buf.size() + 255) / 256), 256>>>(buf.dev(), 0.5f, buf.size());
    cudaDeviceSynchronize();
    buf.download();
    printf("buf[42] = %f\n", buf.host()[42]);
    return 0;
}

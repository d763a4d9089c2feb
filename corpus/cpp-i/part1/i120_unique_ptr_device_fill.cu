// case: a lookup table owned by a std::unique_ptr with a cudaFree deleter is filled by a host loop through get(), which is a device pointer
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t st_ = (call); if (st_ != cudaSuccess) { \
    fprintf(stderr, "CUDA failure %s at %s:%d\n", cudaGetErrorString(st_), __FILE__, __LINE__); \
    exit(1); } } while (0)

struct CudaFree {
    void operator()(void* p) const { cudaFree(p); }
};

template <typename T>
using device_ptr = std::unique_ptr<T[], CudaFree>;

template <typename T>
device_ptr<T> make_device(size_t n) {
    T* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    return device_ptr<T>(p);
}

__global__ void apply_gamma(const float* lut, const unsigned char* in, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (unsigned char)(lut[in[i]] * 255.0f);
}

int main() {
    const int npix = 1 << 22;
    const float gamma = 2.2f;

    device_ptr<float> lut = make_device<float>(256);
    float* lut_raw = lut.get();
    for (int v = 0; v < 256; ++v)
        lut_raw[v] = std::pow(v / 255.0f, 1.0f / gamma); // EXPECT: host_deref_device_ptr

    std::vector<unsigned char> img(npix);
    for (int i = 0; i < npix; ++i) img[i] = (unsigned char)(i & 0xff);
    device_ptr<unsigned char> d_in = make_device<unsigned char>(npix);
    device_ptr<unsigned char> d_out = make_device<unsigned char>(npix);
    CUDA_CHECK(cudaMemcpy(d_in.get(), img.data(), npix, cudaMemcpyHostToDevice));

    apply_gamma<<<(npix + 255) / 256, 256>>>(lut.get(), d_in.get(), d_out.get(), npix);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(img.data(), d_out.get(), npix, cudaMemcpyDeviceToHost));
    printf("pixel 128 -> %u\n", (unsigned)img[128]);
    return 0;
}

// case: a volume renderer owns pinned memory through unique_ptr with a cudaFreeHost deleter and device memory through one with a cudaFree deleter, each released by its own allocator's function
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct HostFree { void operator()(void* p) const { cudaFreeHost(p); } };
struct DevFree { void operator()(void* p) const { cudaFree(p); } };

template <typename T> using pinned_ptr = std::unique_ptr<T[], HostFree>;
template <typename T> using dev_ptr = std::unique_ptr<T[], DevFree>;

template <typename T> pinned_ptr<T> alloc_pinned(size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, n * sizeof(T)));
    return pinned_ptr<T>(static_cast<T*>(p));
}
template <typename T> dev_ptr<T> alloc_dev(size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    return dev_ptr<T>(static_cast<T*>(p));
}

__global__ void mip_z(const unsigned short* vol, int nx, int ny, int nz, unsigned short* mip) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    unsigned short m = 0;
    for (int z = 0; z < nz; ++z) {
        unsigned short v = vol[((size_t)z * ny + y) * nx + x];
        m = v > m ? v : m;
    }
    mip[y * nx + x] = m;
}

int main() {
    const int nx = 512, ny = 512, nz = 256;
    const size_t nvox = (size_t)nx * ny * nz, npix = (size_t)nx * ny;
    auto h_vol = alloc_pinned<unsigned short>(nvox);
    auto h_mip = alloc_pinned<unsigned short>(npix);
    auto d_vol = alloc_dev<unsigned short>(nvox);
    auto d_mip = alloc_dev<unsigned short>(npix);
    for (size_t i = 0; i < nvox; ++i) h_vol[i] = (unsigned short)((i * 40503u) >> 4);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_vol.get(), h_vol.get(), nvox * sizeof(unsigned short), cudaMemcpyHostToDevice, s));
    mip_z<<<dim3(nx / 16, ny / 16), dim3(16, 16), 0, s>>>(d_vol.get(), nx, ny, nz, d_mip.get());
    CUDA_CHECK(cudaMemcpyAsync(h_mip.get(), d_mip.get(), npix * sizeof(unsigned short), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));

    unsigned long long acc = 0;
    for (size_t i = 0; i < npix; ++i) acc += h_mip[i];
    printf("mean MIP intensity %.1f\n", (double)acc / npix);
    return 0;
}

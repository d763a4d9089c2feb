// case: a mirrored VMM ring buffer grants access before any use, its wrap-around kernel executes fence.proxy.alias between writing through one view and reading through the other, and teardown unmaps before freeing the range
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    const char* m = nullptr; cuGetErrorString(r_, &m); fprintf(stderr, "%s: %s\n", #x, m); exit(1); } } while (0)
#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void wrap_copy(int* ring, const int* mirror, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    ring[i] = 5 * i + 2;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = mirror[i];
}

class MirrorRing {
public:
    explicit MirrorRing(int device) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        CU_CHECK(cuMemGetAllocationGranularity(&size_, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
        CU_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base_, 2 * size_, &acc, 1));
    }
    ~MirrorRing() {
        cuMemUnmap(base_ + size_, size_);
        cuMemUnmap(base_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, 2 * size_);
    }
    int* front() const { return reinterpret_cast<int*>(base_); }
    int* mirror() const { return reinterpret_cast<int*>(base_ + size_); }
    size_t bytes() const { return size_; }
    CUdeviceptr base() const { return base_; }

private:
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

int main() {
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(0));
    {
        MirrorRing ring(0);
        const int n = (int)(ring.bytes() / sizeof(int));
        CU_CHECK(cuMemsetD32(ring.base(), 0, n));
        int* d_out;
        CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
        wrap_copy<<<(n + 255) / 256, 256>>>(ring.front(), ring.mirror(), d_out, n);
        std::vector<int> out(n), ring_now(n);
        CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(ring_now.data(), ring.front(), n * sizeof(int), cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < n; ++i) bad += out[i] != ring_now[i];
        printf("mismatches: %d\n", bad);
        CUDA_CHECK(cudaFree(d_out));
    }
    return 0;
}

// case: ray tracer reserves a VMM arena for BVH nodes and clears it with cuMemsetD32Async before cuMemSetAccess has granted the device access to the new mapping; the build kernel and teardown afterwards are ordered correctly.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

struct BvhNode { float lo[3]; float hi[3]; int left; int right; };

__global__ void build_leaves(BvhNode* nodes, const float4* tris, int n_tris) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_tris) return;
    float4 a = tris[3 * i], b = tris[3 * i + 1], c = tris[3 * i + 2];
    BvhNode& nd = nodes[i];
    nd.lo[0] = fminf(a.x, fminf(b.x, c.x)); nd.hi[0] = fmaxf(a.x, fmaxf(b.x, c.x));
    nd.lo[1] = fminf(a.y, fminf(b.y, c.y)); nd.hi[1] = fmaxf(a.y, fmaxf(b.y, c.y));
    nd.lo[2] = fminf(a.z, fminf(b.z, c.z)); nd.hi[2] = fmaxf(a.z, fmaxf(b.z, c.z));
    nd.left = nd.right = -1 - i;
}

#define DRV(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { printf("%s failed: %d\n", #x, (int)r_); } } while (0)

class NodeArena {
public:
    NodeArena(int device, size_t min_bytes) : device_(device) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device_;
        size_t gran = 0;
        DRV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = ((min_bytes + gran - 1) / gran) * gran;
        DRV(cuMemAddressReserve(&base_, size_, 0, 0, 0));
        DRV(cuMemCreate(&handle_, size_, &prop, 0));
        DRV(cuMemMap(base_, size_, 0, handle_, 0));
    }

    void clear(CUstream stream) {
        DRV(cuMemsetD32Async(base_, 0xffffffffu, size_ / 4, stream));
    }

    void grant() {
        CUmemAccessDesc access = {};
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = device_;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DRV(cuMemSetAccess(base_, size_, &access, 1));
    }

    BvhNode* nodes() const { return reinterpret_cast<BvhNode*>(base_); }

    ~NodeArena() {
        DRV(cuMemUnmap(base_, size_));
        DRV(cuMemRelease(handle_));
        DRV(cuMemAddressFree(base_, size_));
    }

private:
    int device_;
    size_t size_ = 0;
    CUdeviceptr base_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

int main() {
    cudaFree(nullptr);   // create the primary context
    const int n_tris = 1 << 18;
    float4* d_tris = nullptr;
    cudaMalloc(&d_tris, 3 * n_tris * sizeof(float4));
    cudaMemset(d_tris, 0, 3 * n_tris * sizeof(float4));
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    {
        NodeArena arena(0, 2 * n_tris * sizeof(BvhNode));
        arena.clear(stream);
        arena.grant();
        build_leaves<<<(n_tris + 255) / 256, 256, 0, stream>>>(arena.nodes(), d_tris, n_tris);
        cudaStreamSynchronize(stream);
    }
    cudaFree(d_tris);
    cudaStreamDestroy(stream);
    printf("bvh leaves built\n");
    return 0;
}

// case: a mirrored ring buffer maps one physical allocation at base and base+size; a wrap-around kernel writes through the first view and reads the same bytes through the second without fence.proxy.alias
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { \
    fprintf(stderr, "%s -> %d\n", #x, (int)r); exit(1); } } while (0)
#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void produce_and_consume(int* head_view, const int* wrapped_view, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    head_view[i] = i * 3 + 1;
    __syncthreads();
    out[i] = wrapped_view[i];
}

struct MirroredRing {
    CUdeviceptr base = 0;
    size_t size = 0;
    CUmemGenericAllocationHandle phys = 0;
};

static void ring_create(MirroredRing& r, int device) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    CU_CHECK(cuMemGetAllocationGranularity(&r.size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CU_CHECK(cuMemCreate(&r.phys, r.size, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&r.base, 2 * r.size, 0, 0, 0));
    CU_CHECK(cuMemMap(r.base, r.size, 0, r.phys, 0));
    CU_CHECK(cuMemMap(r.base + r.size, r.size, 0, r.phys, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(r.base, 2 * r.size, &acc, 1));
}

static void ring_destroy(MirroredRing& r) {
    CU_CHECK(cuMemUnmap(r.base, r.size));
    CU_CHECK(cuMemUnmap(r.base + r.size, r.size));
    CU_CHECK(cuMemRelease(r.phys));
    CU_CHECK(cuMemAddressFree(r.base, 2 * r.size));
}

int main() {
    CUDA_CHECK(cudaFree(0));
    MirroredRing ring;
    ring_create(ring, 0);

    const int n = (int)(ring.size / sizeof(int));
    int* front = reinterpret_cast<int*>(ring.base);
    int* mirror = reinterpret_cast<int*>(ring.base + ring.size);
    int* d_out;
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CU_CHECK(cuMemsetD8(ring.base, 0, ring.size));

    produce_and_consume<<<(n + 255) / 256, 256>>>(front, mirror, d_out, n); // EXPECT: unfenced_vmm_alias
    CUDA_CHECK(cudaGetLastError());

    std::vector<int> out(n), ring_now(n);
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(ring_now.data(), front, n * sizeof(int), cudaMemcpyDeviceToHost));
    int stale = 0;
    for (int i = 0; i < n; ++i) stale += out[i] != ring_now[i];
    printf("stale reads through the mirror: %d of %d\n", stale, n);

    CUDA_CHECK(cudaFree(d_out));
    ring_destroy(ring);
    return 0;
}

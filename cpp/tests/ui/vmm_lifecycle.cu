// The order of the VMM calls around a mapping (seed 003: reserve, create, map, set access, use;
// then unmap, release, free the range). A mapping starts with no access, also after an unmap
// and a new map; a range is freed only once nothing in it is mapped; a mapped range is not
// mapped again. Releasing the handle while it is still mapped is legal; unmapping while work
// still runs is missing_sync's finding. Shapes as VMM code writes them: helpers that map and
// return the address, CHECK macros, a buffer class, a pool grown a chunk at a time, the
// mirrored ring buffer, rollback after a failed cuMemMap.
// Lines that must be reported end with an annotation; ok_* functions stay silent.
#include <cuda.h>
#include <vector>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                                   \
    do {                                                                                 \
        CUresult status_ = (call);                                                       \
        if (status_ != CUDA_SUCCESS) {                                                   \
            const char* msg_ = nullptr;                                                  \
            cuGetErrorString(status_, &msg_);                                            \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, msg_);  \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

__global__ void fill(int* p, int v, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}

static size_t granularity(int dev) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    return gran;
}

static CUmemGenericAllocationHandle create_physical(size_t size, int dev) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    CUmemGenericAllocationHandle handle;
    cuMemCreate(&handle, size, &prop, 0);
    return handle;
}

static void grant(CUdeviceptr va, size_t size, int dev) {
    CUmemAccessDesc access = {};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = dev;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    cuMemSetAccess(va, size, &access, 1);
}

// A first draft of an allocator: reserves and maps, and forgets the access.
static CUdeviceptr map_without_access(CUmemGenericAllocationHandle handle, size_t size) {
    CUdeviceptr va = 0;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, handle, 0);
    return va;
}

// Reserve, map, set access: ready to use.
static CUdeviceptr map_view(CUmemGenericAllocationHandle handle, size_t size, int dev) {
    CUdeviceptr va = 0;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, handle, 0);
    grant(va, size, dev);
    return va;
}

// The documented teardown: unmap, release, free the range.
static void unmap_release_free(CUdeviceptr va, size_t size, CUmemGenericAllocationHandle handle) {
    cuMemUnmap(va, size);
    cuMemRelease(handle);
    cuMemAddressFree(va, size);
}

// ---- access --------------------------------------------------------------------------------

void fires_kernel_on_a_view_mapped_without_access(int dev) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va = map_without_access(h, size);
    size_t n = size / sizeof(int);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 7, n); //~ vmm_lifecycle
    cudaDeviceSynchronize();
}

void ok_kernel_on_a_view_from_the_granting_helper(int dev) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va = map_view(h, size, dev);
    size_t n = size / sizeof(int);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 7, n);
    cudaDeviceSynchronize();
    unmap_release_free(va, size, h);
}

// The granting helper called once per buffer: two ranges, each mapped once.
void ok_two_buffers_from_the_granting_helper(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h_in = create_physical(size, dev);
    CUmemGenericAllocationHandle h_out = create_physical(size, dev);
    CUdeviceptr in = map_view(h_in, size, dev);
    CUdeviceptr out = map_view(h_out, size, dev);
    cudaMemsetAsync((void*)in, 0, size, s);
    cudaMemsetAsync((void*)out, 0, size, s);
    cudaStreamSynchronize(s);
    unmap_release_free(in, size, h_in);
    unmap_release_free(out, size, h_out);
}

void fires_memset_right_after_map(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    cudaMemsetAsync((void*)va, 0, size, s); //~ vmm_lifecycle
    cudaStreamSynchronize(s);
}

void fires_driver_memset_before_set_access(int dev, CUstream s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    cuMemsetD32Async(va, 0, size / 4, s); //~ vmm_lifecycle
    cuStreamSynchronize(s);
    cuMemUnmap(va, size);
    cuMemRelease(h);
    cuMemAddressFree(va, size);
}

void fires_upload_before_set_access(int dev, const int* host) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    cuMemcpyHtoD(va, host, size); //~ vmm_lifecycle
    grant(va, size, dev);
}

void fires_set_access_after_the_first_launch(int dev) {
    size_t size = granularity(dev);
    size_t n = size / sizeof(int);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 0, n); //~ vmm_lifecycle
    grant(va, size, dev);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 1, n);
    cudaDeviceSynchronize();
}

void fires_access_granted_on_one_branch_only(int dev, bool lazy_access, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    if (!lazy_access) {
        grant(va, size, dev);
    }
    cudaMemsetAsync((void*)va, 0, size, s); //~ vmm_lifecycle
    cudaStreamSynchronize(s);
}

void fires_remap_without_new_access(int dev, int* host) {
    size_t size = granularity(dev);
    size_t n = size / sizeof(int);
    CUmemGenericAllocationHandle old_h = create_physical(size, dev);
    CUmemGenericAllocationHandle new_h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, old_h, 0);
    grant(va, size, dev);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 1, n);
    cudaDeviceSynchronize();
    cuMemUnmap(va, size);
    cuMemRelease(old_h);
    cuMemMap(va, size, 0, new_h, 0);
    cudaMemcpy(host, (const void*)va, size, cudaMemcpyDeviceToHost); //~ vmm_lifecycle
}

void ok_access_granted_again_after_remap(int dev, int* host) {
    size_t size = granularity(dev);
    size_t n = size / sizeof(int);
    CUmemGenericAllocationHandle old_h = create_physical(size, dev);
    CUmemGenericAllocationHandle new_h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, old_h, 0);
    grant(va, size, dev);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 1, n);
    cudaDeviceSynchronize();
    cuMemUnmap(va, size);
    cuMemRelease(old_h);
    cuMemMap(va, size, 0, new_h, 0);
    grant(va, size, dev);
    cudaMemcpy(host, (const void*)va, size, cudaMemcpyDeviceToHost);
}

// After cuMemUnmap the address is no mapping: nothing grants the device access to it.
// Known problem, not found yet: a launch on an address no longer mapped is not reported
void known_miss_kernel_after_unmap(int dev) {
    size_t size = granularity(dev);
    size_t n = size / sizeof(int);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va = map_view(h, size, dev);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 1, n);
    cudaDeviceSynchronize();
    cuMemUnmap(va, size);
    cuMemRelease(h);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 2, n);
    cudaDeviceSynchronize();
    cuMemAddressFree(va, size);
}

// A pool grows by one chunk: the access was set before the new chunk was mapped.
void fires_growth_chunk_mapped_after_the_grant(int dev, cudaStream_t s) {
    size_t chunk = granularity(dev);
    CUdeviceptr range;
    cuMemAddressReserve(&range, 4 * chunk, 0, 0, 0);
    cuMemMap(range, chunk, 0, create_physical(chunk, dev), 0);
    grant(range, chunk, dev);
    cuMemMap(range + chunk, chunk, 0, create_physical(chunk, dev), 0);
    cudaMemsetAsync((void*)(range + chunk), 0, chunk, s); //~ vmm_lifecycle
    cudaStreamSynchronize(s);
}

void ok_access_granted_in_the_growth_loop(int dev, int chunks, cudaStream_t s) {
    size_t chunk = granularity(dev);
    CUdeviceptr base;
    cuMemAddressReserve(&base, chunks * chunk, 0, 0, 0);
    for (int i = 0; i < chunks; ++i) {
        CUdeviceptr at = base + i * chunk;
        cuMemMap(at, chunk, 0, create_physical(chunk, dev), 0);
        grant(at, chunk, dev);
    }
    cudaMemsetAsync((void*)base, 0, chunks * chunk, s);
    cudaStreamSynchronize(s);
}

void ok_access_for_every_device_in_one_call(int devices, cudaStream_t s) {
    size_t size = granularity(0);
    CUmemGenericAllocationHandle h = create_physical(size, 0);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    CUmemAccessDesc descs[8] = {};
    for (int d = 0; d < devices && d < 8; ++d) {
        descs[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        descs[d].location.id = d;
        descs[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    cuMemSetAccess(va, size, descs, devices);
    cudaMemsetAsync((void*)va, 0, size, s);
    cudaStreamSynchronize(s);
}

void ok_mapping_given_by_the_caller(CUdeviceptr va, size_t size, cudaStream_t s) {
    // Where it was mapped, and whether access was set, is the caller's business.
    cudaMemsetAsync((void*)va, 0, size, s);
    cudaStreamSynchronize(s);
}

void fires_memset_without_access_in_check_macros(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h;
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    CU_CHECK(cuMemCreate(&h, size, &prop, 0));
    CUdeviceptr va;
    CU_CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CU_CHECK(cuMemMap(va, size, 0, h, 0));
    CUDA_CHECK(cudaMemsetAsync((void*)va, 0, size, s)); //~ vmm_lifecycle
    CUDA_CHECK(cudaStreamSynchronize(s));
}

// Known problem of the lint (access tracked per mapping, not per byte), but still a misuse:
// the grant covers the first half of the ring only, and the kernel writes the mirror half.
// Known problem, not found yet: access is tracked per mapping, not per byte (LINTS.md)
void known_miss_access_set_on_the_first_half_of_a_ring_only(int dev) {
    size_t size = granularity(dev);
    size_t n = size / sizeof(int);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr base;
    cuMemAddressReserve(&base, 2 * size, 0, 0, 0);
    cuMemMap(base, size, 0, h, 0);
    cuMemMap(base + size, size, 0, h, 0);
    grant(base, size, dev);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)(base + size), 1, n);
    cudaDeviceSynchronize();
}

// ---- teardown ------------------------------------------------------------------------------

void ok_documented_order(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    grant(va, size, dev);
    cudaMemsetAsync((void*)va, 0, size, s);
    cudaStreamSynchronize(s);
    cuMemUnmap(va, size);
    cuMemRelease(h);
    cuMemAddressFree(va, size);
}

void fires_address_free_while_mapped(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va = map_view(h, size, dev);
    cudaMemsetAsync((void*)va, 0, size, s);
    cudaStreamSynchronize(s);
    cuMemRelease(h);
    cuMemAddressFree(va, size); //~ vmm_lifecycle
}

// The inverted teardown of Mooncake #2380: the range first.
void fires_range_freed_first_at_teardown(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va = map_view(h, size, dev);
    cudaMemsetAsync((void*)va, 0, size, s);
    cudaStreamSynchronize(s);
    cuMemAddressFree(va, size); //~ vmm_lifecycle
    cuMemUnmap(va, size);
    cuMemRelease(h);
}

void fires_address_free_in_check_macros_while_mapped(int dev) {
    size_t size = granularity(dev);
    size_t n = size / sizeof(int);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va = map_view(h, size, dev);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 3, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    CU_CHECK(cuMemRelease(h));
    CU_CHECK(cuMemAddressFree(va, size)); //~ vmm_lifecycle
}

void ok_documented_order_in_check_macros(int dev) {
    size_t size = granularity(dev);
    size_t n = size / sizeof(int);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    CU_CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CU_CHECK(cuMemMap(va, size, 0, h, 0));
    grant(va, size, dev);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 3, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    CU_CHECK(cuMemUnmap(va, size));
    CU_CHECK(cuMemRelease(h));
    CU_CHECK(cuMemAddressFree(va, size));
}

// Legal: the memory lives until its last mapping goes.
void ok_handle_released_right_after_mapping(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    cuMemRelease(h);
    grant(va, size, dev);
    cudaMemsetAsync((void*)va, 0, size, s);
    cudaStreamSynchronize(s);
    cuMemUnmap(va, size);
    cuMemAddressFree(va, size);
}

void ok_release_before_unmap_at_teardown(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va = map_view(h, size, dev);
    cudaMemsetAsync((void*)va, 0, size, s);
    cudaStreamSynchronize(s);
    cuMemRelease(h);
    cuMemUnmap(va, size);
    cuMemAddressFree(va, size);
}

// Known problem, not found yet: an unmap at a range's start is taken to unmap every mapping in the range
void known_miss_ring_half_left_mapped_at_free(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr base;
    cuMemAddressReserve(&base, 2 * size, 0, 0, 0);
    cuMemMap(base, size, 0, h, 0);
    cuMemMap(base + size, size, 0, h, 0);
    grant(base, 2 * size, dev);
    cudaMemsetAsync((void*)base, 0, size, s);
    cudaStreamSynchronize(s);
    cuMemUnmap(base, size);
    cuMemRelease(h);
    cuMemAddressFree(base, 2 * size);
}

void ok_ring_unmapped_by_one_call_over_both_halves(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr base;
    cuMemAddressReserve(&base, 2 * size, 0, 0, 0);
    cuMemMap(base, size, 0, h, 0);
    cuMemMap(base + size, size, 0, h, 0);
    cuMemRelease(h);
    grant(base, 2 * size, dev);
    cudaMemsetAsync((void*)(base + size), 0, size, s);
    cudaStreamSynchronize(s);
    cuMemUnmap(base, 2 * size);
    cuMemAddressFree(base, 2 * size);
}

void ok_pool_grown_and_freed_in_loops(int dev, int chunks, cudaStream_t s) {
    size_t chunk = granularity(dev);
    CUdeviceptr base;
    cuMemAddressReserve(&base, chunks * chunk, 0, 0, 0);
    CUmemGenericAllocationHandle handles[64];
    for (int i = 0; i < chunks; ++i) {
        handles[i] = create_physical(chunk, dev);
        cuMemMap(base + i * chunk, chunk, 0, handles[i], 0);
    }
    grant(base, chunks * chunk, dev);
    cudaMemsetAsync((void*)base, 0, chunks * chunk, s);
    cudaStreamSynchronize(s);
    for (int i = 0; i < chunks; ++i) {
        cuMemUnmap(base + i * chunk, chunk);
        cuMemRelease(handles[i]);
    }
    cuMemAddressFree(base, chunks * chunk);
}

// Seed 003: no new mapping on a range that is already mapped.
void fires_map_over_a_mapped_range(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle old_h = create_physical(size, dev);
    CUmemGenericAllocationHandle new_h = create_physical(size, dev);
    CUdeviceptr va = map_view(old_h, size, dev);
    cudaMemsetAsync((void*)va, 1, size, s);
    cudaStreamSynchronize(s);
    cuMemMap(va, size, 0, new_h, 0); //~ vmm_lifecycle
    grant(va, size, dev);
}

void ok_remap_in_a_loop_after_unmap(int dev, int steps, cudaStream_t s) {
    size_t size = granularity(dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    for (int step = 0; step < steps; ++step) {
        CUmemGenericAllocationHandle h = create_physical(size, dev);
        cuMemMap(va, size, 0, h, 0);
        cuMemRelease(h);
        grant(va, size, dev);
        cudaMemsetAsync((void*)va, step, size, s);
        cudaStreamSynchronize(s);
        cuMemUnmap(va, size);
    }
    cuMemAddressFree(va, size);
}

// ---- a failed cuMemMap ---------------------------------------------------------------------

// The map failed: nothing is mapped, and freeing the range is the rollback.
int ok_rollback_of_a_failed_map(int dev) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    if (cuMemMap(va, size, 0, h, 0) != CUDA_SUCCESS) {
        cuMemRelease(h);
        cuMemAddressFree(va, size);
        return -1;
    }
    grant(va, size, dev);
    return 0;
}

int ok_rollback_through_a_status_variable(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    CUresult res = cuMemMap(va, size, 0, h, 0);
    if (res != CUDA_SUCCESS) {
        fprintf(stderr, "cuMemMap failed: %d\n", (int)res);
        cuMemRelease(h);
        cuMemAddressFree(va, size);
        return -1;
    }
    grant(va, size, dev);
    cudaMemsetAsync((void*)va, 0, size, s);
    cudaStreamSynchronize(s);
    cuMemUnmap(va, size);
    cuMemRelease(h);
    cuMemAddressFree(va, size);
    return 0;
}

int fires_free_after_a_checked_map_that_succeeded(int dev) {
    size_t size = granularity(dev);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    CUresult res = cuMemMap(va, size, 0, h, 0);
    if (res != CUDA_SUCCESS) {
        cuMemAddressFree(va, size);
        return -1;
    }
    cuMemRelease(h);
    cuMemAddressFree(va, size); //~ vmm_lifecycle
    return 0;
}

// ---- a buffer class ------------------------------------------------------------------------

class VmmBuffer {
public:
    VmmBuffer(size_t size, int dev) : size_(size) {
        handle_ = create_physical(size, dev);
        cuMemAddressReserve(&va_, size, 0, 0, 0);
        cuMemMap(va_, size, 0, handle_, 0);
        grant(va_, size, dev);
    }
    ~VmmBuffer() {
        cuMemUnmap(va_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(va_, size_);
    }
    int* data() const { return (int*)va_; }
    size_t count() const { return size_ / sizeof(int); }

private:
    CUdeviceptr va_ = 0;
    size_t size_;
    CUmemGenericAllocationHandle handle_;
};

void ok_buffer_class_maps_in_its_constructor(int dev) {
    VmmBuffer buf(granularity(dev), dev);
    fill<<<(unsigned)((buf.count() + 255) / 256), 256>>>(buf.data(), 5, buf.count());
    cudaDeviceSynchronize();
}

// ---- unmapping while work runs: missing_sync, not this lint ---------------------------------

void fires_unmap_while_the_kernel_runs(int dev) {
    size_t size = granularity(dev);
    size_t n = size / sizeof(int);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va = map_view(h, size, dev);
    fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)va, 1, n);
    cuMemUnmap(va, size); //~ missing_sync
    cuMemRelease(h);
    cuMemAddressFree(va, size);
}

void ok_unmap_after_the_stream_is_synchronized(int dev, cudaStream_t s) {
    size_t size = granularity(dev);
    size_t n = size / sizeof(int);
    CUmemGenericAllocationHandle h = create_physical(size, dev);
    CUdeviceptr va = map_view(h, size, dev);
    fill<<<(unsigned)((n + 255) / 256), 256, 0, s>>>((int*)va, 1, n);
    cudaStreamSynchronize(s);
    unmap_release_free(va, size, h);
}

// An arena maps chunks at offsets it keeps in a vector, and its destructor unmaps each chunk at
// its offset before freeing the range: the mappings are all unmapped.
struct Chunk {
    CUmemGenericAllocationHandle handle;
    size_t offset;
    size_t bytes;
};

class Arena {
  public:
    Arena(size_t reserved, size_t first, int dev) : reserved_(reserved) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = dev;
        cuMemAddressReserve(&base_, reserved_, 0, 0, 0);
        CUmemGenericAllocationHandle h;
        cuMemCreate(&h, first, &prop_, 0);
        cuMemMap(base_, first, 0, h, 0);
        chunks_.push_back({h, 0, first});
    }
    ~Arena() {
        for (const Chunk& c : chunks_) {
            cuMemUnmap(base_ + c.offset, c.bytes);
            cuMemRelease(c.handle);
        }
        cuMemAddressFree(base_, reserved_);
    }

  private:
    size_t reserved_;
    CUmemAllocationProp prop_ = {};
    CUdeviceptr base_ = 0;
    std::vector<Chunk> chunks_;
};

void ok_arena_unmaps_each_chunk_at_its_offset(int dev) {
    Arena arena(size_t(1) << 30, size_t(2) << 20, dev);
}

// Pages mapped one after another at a computed offset: each map is a new place, not the same
// range mapped twice; the kernel still must not run before `cuMemSetAccess`.
class PagePool {
  public:
    PagePool(size_t page, size_t pages, int dev) : page_(page) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = dev;
        cuMemAddressReserve(&base_, page_ * pages, 0, 0, 0);
    }
    CUdeviceptr add_page() {
        CUmemGenericAllocationHandle h;
        cuMemCreate(&h, page_, &prop_, 0);
        CUdeviceptr va = base_ + handles_.size() * page_;
        cuMemMap(va, page_, 0, h, 0);
        handles_.push_back(h);
        return va;
    }

  private:
    size_t page_;
    CUmemAllocationProp prop_ = {};
    CUdeviceptr base_ = 0;
    std::vector<CUmemGenericAllocationHandle> handles_;
};

void fires_pages_used_before_access(int n, int dev) {
    PagePool pool(size_t(2) << 20, 8, dev);
    int* a = reinterpret_cast<int*>(pool.add_page());
    int* b = reinterpret_cast<int*>(pool.add_page());
    touch<<<1, 256>>>(a, n); //~ vmm_lifecycle
    touch<<<1, 256>>>(b, n); //~ vmm_lifecycle
}

// An arena maps each chunk at its running end (`base_ + mapped_`, then `mapped_ += sz`): each
// map is a new place.
class Bump {
  public:
    Bump(size_t reserved, int dev) : reserved_(reserved) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = dev;
        acc_.location = prop_.location;
        acc_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        cuMemAddressReserve(&base_, reserved_, 0, 0, 0);
    }
    CUdeviceptr grow(size_t sz) {
        CUmemGenericAllocationHandle h;
        cuMemCreate(&h, sz, &prop_, 0);
        const CUdeviceptr va = base_ + mapped_;
        cuMemMap(va, sz, 0, h, 0);
        cuMemSetAccess(va, sz, &acc_, 1);
        mapped_ += sz;
        return va;
    }

  private:
    size_t reserved_;
    size_t mapped_ = 0;
    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc acc_ = {};
    CUdeviceptr base_ = 0;
};

void ok_bump_arena_grown_twice(int dev) {
    Bump arena(size_t(1) << 30, dev);
    arena.grow(size_t(2) << 20);
    arena.grow(size_t(2) << 20);
}

constexpr int kBins = 256;

class VmmBins {
  public:
    VmmBins(int device, size_t bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_ = bytes;
        cuMemAddressReserve(&ptr_, size_, 0, 0, 0);
        cuMemCreate(&handle_, size_, &prop, 0);
        cuMemMap(ptr_, size_, 0, handle_, 0);
    }
    ~VmmBins() {
        cuMemRelease(handle_);
        cuMemAddressFree(ptr_, size_); //~ vmm_lifecycle
        cuMemUnmap(ptr_, size_);
    }

  private:
    CUdeviceptr ptr_ = 0;
    size_t size_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

// `VmmBins bins(int(dev), kBins * sizeof(unsigned));` reads to the parser as a function's
// declaration whose "parameters" hold a pointer: still an object, destroyed at the block's end.
void object_declared_with_a_cast_and_a_product(CUdevice dev) {
    VmmBins bins(int(dev), kBins * sizeof(unsigned));
}

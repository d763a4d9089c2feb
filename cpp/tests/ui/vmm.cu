// VMM through the driver API (seed 003): mappings of one physical allocation used by one kernel
// without a fence or by unordered streams, and the lifecycle (access, release order). Lines that
// must be reported end with an annotation; ok_* functions stay silent.
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void foo(char* A, char* B) {
    *A = 0x1;
    printf("%d\n", *B);
}

__global__ void foo_fenced(char* A, char* B) {
    *A = 0x1;
    cuda::ptx::fence_proxy_alias();
    printf("%d\n", *B);
}

__global__ void foo1(char* A) { *A = 0x1; }
__global__ void foo2(const char* B) { printf("%d\n", *B); }

static void grant(CUdeviceptr p, size_t size) {
    CUmemAccessDesc acc = {};
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.location.id = 0;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    cuMemSetAccess(p, size, &acc, 1);
}

void fires_one_kernel_two_aliases(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr A, B;
    cuMemAddressReserve(&A, size, 0, 0, 0);
    cuMemAddressReserve(&B, size, 0, 0, 0);
    cuMemMap(A, size, 0, h, 0);
    cuMemMap(B, size, 0, h, 0);
    grant(A, size);
    grant(B, size);
    foo<<<1, 1>>>((char*)A, (char*)B); //~ unfenced_vmm_alias
    cudaDeviceSynchronize();
}

void ok_one_kernel_with_the_fence(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr A, B;
    cuMemAddressReserve(&A, size, 0, 0, 0);
    cuMemAddressReserve(&B, size, 0, 0, 0);
    cuMemMap(A, size, 0, h, 0);
    cuMemMap(B, size, 0, h, 0);
    grant(A, size);
    grant(B, size);
    foo_fenced<<<1, 1>>>((char*)A, (char*)B);
    cudaDeviceSynchronize();
}

void ok_two_streams_ordered_by_an_event(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr A, B;
    cuMemAddressReserve(&A, size, 0, 0, 0);
    cuMemAddressReserve(&B, size, 0, 0, 0);
    cuMemMap(A, size, 0, h, 0);
    cuMemMap(B, size, 0, h, 0);
    grant(A, size);
    grant(B, size);
    cudaStream_t stream1, stream2;
    cudaStreamCreate(&stream1);
    cudaStreamCreate(&stream2);
    cudaEvent_t event;
    cudaEventCreate(&event);
    foo1<<<1, 1, 0, stream1>>>((char*)A);
    cudaEventRecord(event, stream1);
    cudaStreamWaitEvent(stream2, event);
    foo2<<<1, 1, 0, stream2>>>((char*)B);
    cudaDeviceSynchronize();
}

void fires_two_streams_unordered(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr A, B;
    cuMemAddressReserve(&A, size, 0, 0, 0);
    cuMemAddressReserve(&B, size, 0, 0, 0);
    cuMemMap(A, size, 0, h, 0);
    cuMemMap(B, size, 0, h, 0);
    grant(A, size);
    grant(B, size);
    cudaStream_t stream1, stream2;
    cudaStreamCreate(&stream1);
    cudaStreamCreate(&stream2);
    foo1<<<1, 1, 0, stream1>>>((char*)A);
    foo2<<<1, 1, 0, stream2>>>((char*)B); //~ unfenced_vmm_alias
    cudaDeviceSynchronize();
}

void fires_kernel_before_set_access(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr A;
    cuMemAddressReserve(&A, size, 0, 0, 0);
    cuMemMap(A, size, 0, h, 0);
    foo1<<<1, 1>>>((char*)A); //~ vmm_lifecycle
    cudaDeviceSynchronize();
}

void fires_address_free_before_unmap(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr A;
    cuMemAddressReserve(&A, size, 0, 0, 0);
    cuMemMap(A, size, 0, h, 0);
    grant(A, size);
    cuMemRelease(h);
    cuMemAddressFree(A, size); //~ vmm_lifecycle
}

void fires_unmap_while_the_kernel_runs(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr A;
    cuMemAddressReserve(&A, size, 0, 0, 0);
    cuMemMap(A, size, 0, h, 0);
    grant(A, size);
    foo1<<<1, 1>>>((char*)A);
    cuMemUnmap(A, size); //~ missing_sync
}

void ok_the_documented_release_order(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr A;
    cuMemAddressReserve(&A, size, 0, 0, 0);
    cuMemMap(A, size, 0, h, 0);
    grant(A, size);
    foo1<<<1, 1>>>((char*)A);
    cudaDeviceSynchronize();
    cuMemUnmap(A, size);
    cuMemRelease(h);
    cuMemAddressFree(A, size);
}

void fires_mirrored_ring_in_one_unfenced_kernel(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr base;
    cuMemAddressReserve(&base, 2 * size, 0, 0, 0);
    CUdeviceptr mirror = base + size;
    cuMemMap(base, size, 0, h, 0);
    cuMemMap(mirror, size, 0, h, 0);
    grant(base, 2 * size);
    foo<<<1, 1>>>((char*)base, (char*)mirror); //~ unfenced_vmm_alias
    cudaDeviceSynchronize();
    cuMemUnmap(base, 2 * size);
    cuMemAddressFree(base, 2 * size);
}

void ok_two_chunks_of_one_range_back_to_back(size_t size, CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle h1, h2;
    cuMemCreate(&h1, size, prop, 0);
    cuMemCreate(&h2, size, prop, 0);
    CUdeviceptr base;
    cuMemAddressReserve(&base, 2 * size, 0, 0, 0);
    CUdeviceptr second = base + size;
    cuMemMap(base, size, 0, h1, 0);
    cuMemMap(second, size, 0, h2, 0);
    grant(base, 2 * size);
    foo<<<1, 1>>>((char*)base, (char*)second);
    cudaDeviceSynchronize();
    cuMemUnmap(base, size);
    cuMemUnmap(second, size);
    cuMemAddressFree(base, 2 * size);
}

// Calls beyond cudaMemcpy/cudaMemset: 2D and symbol copies, driver memsets, symbol addresses,
// the C library's memcpy/memset on the host. Each `fires_*` has an `ok_*` twin.
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>

__device__ float table[256];
__constant__ float coeffs[16];

void fires_memcpy_reads_pinned_memory_before_the_copy_lands(size_t n, int* seen, cudaStream_t s) {
    int* h;
    int* d;
    cudaMallocHost(&h, n * sizeof(int));
    cudaMalloc(&d, n * sizeof(int));
    cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s);
    memcpy(seen, h, n * sizeof(int)); //~ missing_sync
    cudaStreamSynchronize(s);
}

void ok_memcpy_after_the_stream_is_synchronized(size_t n, int* seen, cudaStream_t s) {
    int* h;
    int* d;
    cudaMallocHost(&h, n * sizeof(int));
    cudaMalloc(&d, n * sizeof(int));
    cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    std::memcpy(seen, h, n * sizeof(int));
}

void fires_memset_of_device_memory_on_the_host(size_t n) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    memset(d, 0, n * sizeof(float)); //~ host_deref_device_ptr
    cudaFree(d);
}

void ok_cuda_memset_of_device_memory(size_t n) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemset(d, 0, n * sizeof(float));
    cudaFree(d);
}

void fires_pageable_2d_copy(int w, int h, cudaStream_t s) {
    float* host = new float[w * h];
    float* dev;
    size_t pitch;
    cudaMallocPitch((void**)&dev, &pitch, w * sizeof(float), h);
    cudaMemcpy2DAsync(dev, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    delete[] host;
}

void ok_pinned_2d_copy(int w, int h, cudaStream_t s) {
    float* host;
    cudaMallocHost(&host, w * h * sizeof(float));
    float* dev;
    size_t pitch;
    cudaMallocPitch((void**)&dev, &pitch, w * sizeof(float), h);
    cudaMemcpy2DAsync(dev, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

void fires_pageable_symbol_upload(const std::vector<float>& host, cudaStream_t s) {
    cudaMemcpyToSymbolAsync(coeffs, host.data(), host.size() * sizeof(float), 0, cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
}

void ok_blocking_symbol_upload_from_the_stack() {
    float host[16];
    for (int i = 0; i < 16; i++) host[i] = i;
    cudaMemcpyToSymbol(coeffs, host, sizeof(host));
}

void fires_cuda_free_of_a_symbol_address() {
    void* g;
    cudaGetSymbolAddress(&g, table);
    cudaFree(g); //~ mismatched_free
}

void ok_symbol_address_used_and_not_freed(cudaStream_t s) {
    void* g;
    cudaGetSymbolAddress(&g, table);
    cudaMemsetAsync(g, 0, sizeof(table), s);
    cudaStreamSynchronize(s);
}

void fires_driver_memset_before_access_is_granted(size_t size, CUmemAllocationProp* prop, CUstream s) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    cuMemsetD32Async(va, 7, size / 4, s); //~ vmm_lifecycle
    cuStreamSynchronize(s);
}

void ok_driver_memset_after_access_is_granted(size_t size, CUmemAllocationProp* prop, CUmemAccessDesc* access, CUstream s) {
    CUmemGenericAllocationHandle h;
    cuMemCreate(&h, size, prop, 0);
    CUdeviceptr va;
    cuMemAddressReserve(&va, size, 0, 0, 0);
    cuMemMap(va, size, 0, h, 0);
    cuMemSetAccess(va, size, access, 1);
    cuMemsetD32Async(va, 7, size / 4, s);
    cuStreamSynchronize(s);
}

void fires_free_while_a_driver_copy_reads_it(size_t n) {
    // A non-blocking stream: the legacy stream does not wait for it.
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    CUdeviceptr a, b;
    cuMemAlloc(&a, n);
    cuMemAlloc(&b, n);
    cuMemcpyDtoDAsync(b, a, n, s);
    cuMemFreeAsync(a, 0); //~ missing_sync
    cuStreamSynchronize(s);
}

void ok_free_on_the_stream_of_the_copy(size_t n) {
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    CUdeviceptr a, b;
    cuMemAlloc(&a, n);
    cuMemAlloc(&b, n);
    cuMemcpyDtoDAsync(b, a, n, s);
    cuMemFreeAsync(a, s);
    cuStreamSynchronize(s);
}

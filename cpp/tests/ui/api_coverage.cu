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

// From the C table both front ends read (lint/c-api): the device's address of mapped pinned
// memory is that memory, so a kernel writing through it is work on the host buffer.
__global__ void count_hits(int* hits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hits[i] += 1;
}

int fires_host_reads_mapped_memory_the_kernel_still_writes(int n, cudaStream_t s) {
    int* host;
    int* dev_view;
    cudaHostAlloc(&host, n * sizeof(int), cudaHostAllocMapped);
    cudaHostGetDevicePointer(&dev_view, host, 0);
    count_hits<<<(n + 255) / 256, 256, 0, s>>>(dev_view, n);
    int first = host[0]; //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFreeHost(host);
    return first;
}

int ok_host_reads_mapped_memory_after_the_kernel(int n, cudaStream_t s) {
    int* host;
    int* dev_view;
    cudaHostAlloc(&host, n * sizeof(int), cudaHostAllocMapped);
    cudaHostGetDevicePointer(&dev_view, host, 0);
    count_hits<<<(n + 255) / 256, 256, 0, s>>>(dev_view, n);
    cudaStreamSynchronize(s);
    int first = host[0];
    cudaFreeHost(host);
    return first;
}

// `cudaMallocHost(&p, n, flags)`, cuda_runtime.h's C++ overload, is `cudaHostAlloc`.
float fires_read_of_write_combined_memory_from_the_overload(size_t n) {
    float* staging;
    cudaMallocHost(&staging, n * sizeof(float), cudaHostAllocWriteCombined);
    float first = staging[0]; //~ write_combined_host_read
    cudaFreeHost(staging);
    return first;
}

float ok_read_of_pinned_memory_from_the_overload_without_the_flag(size_t n) {
    float* staging;
    cudaMallocHost(&staging, n * sizeof(float), cudaHostAllocPortable);
    float first = staging[0];
    cudaFreeHost(staging);
    return first;
}

// The driver API's copy into a CUDA array from host memory: a blocking copy, so the host may
// reuse the source right after it (nothing to report), while the array itself is not memory the
// analysis follows.
void ok_driver_copy_to_an_array_returns_when_done(CUarray array, size_t n) {
    float* src = (float*)malloc(n * sizeof(float));
    cuMemcpyHtoA(array, 0, src, n * sizeof(float));
    src[0] = 1.0f;
    free(src);
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

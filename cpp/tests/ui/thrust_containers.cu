// Thrust's containers: a device_vector holds device memory (its `d[i]` on the host copies
// through a device_reference, legally), a host_vector pageable memory unless its allocator is
// pinned, a universal_vector managed memory.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/system/cuda/experimental/pinned_allocator.h>

__global__ void square(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

void fires_pageable_host_vector_uploaded_asynchronously(int n, cudaStream_t s) {
    thrust::host_vector<float> h(n, 1.0f);
    thrust::device_vector<float> d(n);
    cudaMemcpyAsync(thrust::raw_pointer_cast(d.data()), thrust::raw_pointer_cast(h.data()), n * sizeof(float), //~ pageable_async_copy
                    cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

void ok_pinned_host_vector_uploaded_asynchronously(int n, cudaStream_t s) {
    thrust::host_vector<float, thrust::cuda::experimental::pinned_allocator<float>> h(n, 1.0f);
    thrust::device_vector<float> d(n);
    cudaMemcpyAsync(thrust::raw_pointer_cast(d.data()), thrust::raw_pointer_cast(h.data()), n * sizeof(float),
                    cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

float ok_device_vector_element_read_on_the_host(int n) {
    thrust::device_vector<float> d(n, 2.0f);
    square<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(d.data()), n);
    cudaDeviceSynchronize();
    return d[0];
}

float fires_pinned_readback_of_a_device_vector_before_the_sync(int n, float* h_out) {
    thrust::device_vector<float> d(n, 2.0f);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    square<<<(n + 255) / 256, 256, 0, s>>>(thrust::raw_pointer_cast(d.data()), n);
    cudaMemcpyAsync(h, thrust::raw_pointer_cast(d.data()), n * sizeof(float), cudaMemcpyDeviceToHost, s);
    return h[0]; //~ missing_sync
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

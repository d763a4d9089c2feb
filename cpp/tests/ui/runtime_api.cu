// The CUDA runtime API in host code: each line a lint must report ends with `//~ lint_name`;
// the functions named ok_* are near-misses and must stay silent.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

__global__ void sum_into(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, in[i]);
}

void fires_pageable_async_copy_from_malloc(int n, cudaStream_t s) {
    float* h = (float*)malloc(n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    cudaFree(d);
    free(h);
}

void fires_pageable_async_copy_into_a_vector(int n) {
    std::vector<float> out(n);
    float* d;
    cudaMalloc((void**)&d, n * sizeof(float));
    cudaMemcpyAsync(out.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, 0); //~ pageable_async_copy
    cudaDeviceSynchronize();
}

void ok_pinned_async_copy(int n, cudaStream_t s) {
    float* h;
    float* d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    cudaFree(d);
    cudaFreeHost(h);
}

void ok_blocking_copy_from_malloc(int n) {
    float* h = (float*)malloc(n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(d);
    free(h);
}

float fires_host_read_of_device_memory(int n) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    float sum = 0;
    for (int i = 0; i < n; ++i) sum += d[i]; //~ host_deref_device_ptr
    cudaFree(d);
    return sum;
}

void fires_printf_of_device_memory(int n) {
    int* d_data;
    cudaMalloc((void**)&d_data, n * sizeof(int));
    cudaDeviceSynchronize();
    for (int i = 0; i < n; i++) {
        printf("%d\n", d_data[i]); //~ host_deref_device_ptr
    }
}

void fires_host_write_of_device_memory(int n) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    *d = 1.0f; //~ host_deref_device_ptr
}

float ok_read_after_copy_back(int n) {
    float* d;
    float* h = (float*)malloc(n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    float first = h[0];
    cudaFree(d);
    free(h);
    return first;
}

float fires_read_before_the_stream_finishes(int n) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    scale<<<(n + 255) / 256, 256, 0, s>>>(d, 2.0f, n);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    float first = h[0]; //~ missing_sync
    cudaStreamSynchronize(s);
    return first;
}

float fires_wait_on_the_wrong_stream(int n) {
    cudaStream_t a, b;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, a);
    cudaStreamSynchronize(b);
    return h[0]; //~ missing_sync
}

float fires_wait_on_one_branch_only(int n, bool quick) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    if (!quick) {
        cudaStreamSynchronize(s);
    }
    return h[0]; //~ missing_sync
}

float ok_read_after_an_event(int n) {
    cudaStream_t s;
    cudaEvent_t done;
    cudaStreamCreate(&s);
    cudaEventCreate(&done);
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaEventRecord(done, s);
    cudaEventSynchronize(done);
    return h[0];
}

float ok_read_after_device_synchronize_in_a_loop(int n, int steps) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    float total = 0;
    for (int i = 0; i < steps; ++i) {
        scale<<<1, 256, 0, s>>>(d, 2.0f, n);
        cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
        cudaDeviceSynchronize();
        total += h[0];
    }
    return total;
}

float fires_read_in_a_loop_before_the_wait(int n, int steps) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    float total = 0;
    for (int i = 0; i < steps; ++i) {
        cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
        total += h[0]; //~ missing_sync
        cudaStreamSynchronize(s);
    }
    return total;
}

void fires_pinned_memory_given_to_cuda_free(int n) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaFree(h); //~ mismatched_free
}

void fires_pinned_memory_given_to_free(int n) {
    float* h;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocDefault);
    free(h); //~ mismatched_free
}

void ok_each_freed_by_its_own_function(int n) {
    float *h, *d;
    float* m = (float*)malloc(n * sizeof(float));
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaFreeHost(h);
    cudaFree(d);
    free(m);
}

float fires_write_combined_readback(int n) {
    float *h, *d;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    return h[0]; //~ write_combined_host_read
}

void ok_write_combined_upload(int n) {
    float *h, *d;
    cudaHostAlloc((void**)&h, n * sizeof(float), cudaHostAllocWriteCombined);
    cudaMalloc(&d, n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = 1.0f;
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
}

float fires_managed_read_while_another_kernel_runs(int n) {
    float *work, *counters;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&counters, 16 * sizeof(float));
    scale<<<(n + 255) / 256, 256>>>(work, 2.0f, n);
    float c = counters[0]; //~ managed_concurrent_access
    cudaDeviceSynchronize();
    return c;
}

float ok_managed_read_after_synchronize(int n) {
    float *work, *counters;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&counters, 16 * sizeof(float));
    scale<<<(n + 255) / 256, 256>>>(work, 2.0f, n);
    cudaDeviceSynchronize();
    return counters[0];
}

float fires_managed_read_while_its_kernel_writes_it(int n) {
    float *in, *total;
    cudaMalloc(&in, n * sizeof(float));
    cudaMallocManaged(&total, sizeof(float));
    sum_into<<<(n + 255) / 256, 256>>>(in, total, n);
    return *total; //~ missing_sync
}

void ok_suppressed_in_source(int n, cudaStream_t s) {
    float* h = (float*)malloc(n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    // cuda-lint: allow(pageable_async_copy)
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

// A kernel defined in another file: whether it writes `m` is not seen (`unverified`'s).
__global__ void defined_elsewhere(float* x, int n);

void unverified_managed_read_while_a_kernel_of_another_file_runs(int n) {
    float* m;
    cudaMallocManaged(&m, n * sizeof(float));
    defined_elsewhere<<<1, 128>>>(m, n);
    float first = m[0];
    printf("%f\n", first);
    cudaFree(m); //~ relies_on_implicit_sync
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

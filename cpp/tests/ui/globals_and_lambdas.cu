// Variables of the file's scope keep what one function stores in them for the next (`init()`
// allocates, `main` copies, `check()` reads); a lambda given to a kernel uses the memory it
// captured; work on a blocking stream waits for the legacy stream's work before it, so that
// synchronizing the blocking stream finishes both. Lines that must be reported end with an
// annotation; ok_* functions stay silent.
#include <cuda_runtime.h>
#include <functional>
#include <cstdio>

int* h_out;
int* d_out;
static float g_table[1 << 16];

template <typename F> __global__ void apply(F f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f(i);
}

__global__ void fill(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i;
}

void init(int n) {
    cudaMallocHost(&h_out, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
}

int check(int n) {
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += h_out[i] != i; //~ missing_sync
    return bad;
}

int fires_globals_across_functions(int n) {
    init(n);
    fill<<<1, 256>>>(d_out, n);
    cudaMemcpyAsync(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost, 0);
    return check(n);
}

int ok_globals_across_functions_synced(int n) {
    init(n);
    fill<<<1, 256>>>(d_out, n);
    cudaMemcpyAsync(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost, 0);
    cudaDeviceSynchronize();
    return check(n);
}

void fires_global_array_is_pageable(float* d, cudaStream_t s) {
    cudaMemcpyAsync(d, g_table, sizeof(g_table), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
}

int fires_lambda_capture(int n) {
    int* data;
    cudaMallocManaged(&data, n * sizeof(int));
    cudaDeviceSynchronize();
    auto body = [=] __device__(int i) { data[i] = i + 1; };
    apply<<<1, 256>>>(body, n);
    return data[0]; //~ missing_sync
}

int ok_lambda_capture_synced(int n) {
    int* data;
    cudaMallocManaged(&data, n * sizeof(int));
    cudaDeviceSynchronize();
    auto body = [=] __device__(int i) { data[i] = i + 1; };
    apply<<<1, 256>>>(body, n);
    cudaDeviceSynchronize();
    return data[0];
}

// A kernel on the legacy stream, then one on a blocking stream: the second starts after the
// first, so waiting for the blocking stream waits for both.
int ok_blocking_stream_waits_for_legacy_work(int n) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    int* managed;
    int* other;
    cudaMallocManaged(&managed, n * sizeof(int));
    cudaMalloc(&other, n * sizeof(int));
    cudaDeviceSynchronize();
    fill<<<1, 256, 0, 0>>>(managed, n);
    fill<<<1, 256, 0, s>>>(other, n);
    cudaStreamSynchronize(s);
    return managed[0];
}

int fires_non_blocking_stream_does_not_wait_for_legacy_work(int n) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    int* managed;
    int* other;
    cudaMallocManaged(&managed, n * sizeof(int));
    cudaMalloc(&other, n * sizeof(int));
    cudaDeviceSynchronize();
    fill<<<1, 256, 0, 0>>>(managed, n);
    fill<<<1, 256, 0, s>>>(other, n);
    cudaStreamSynchronize(s);
    return managed[0]; //~ missing_sync
}

// A lambda held in a variable runs where it is called: what it reads, it reads there.
__global__ void fill_bins(unsigned* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) bins[i] = i;
}

void fires_progress_lambda_called_before_the_wait(int n) {
    unsigned* bins;
    cudaMallocManaged(&bins, n * sizeof(unsigned));
    auto report = [&](const char* stage) {
        printf("[%s] first bin %u\n", stage, bins[0]); //~ missing_sync
    };
    fill_bins<<<(n + 255) / 256, 256>>>(bins, n);
    report("launched");
    cudaDeviceSynchronize();
    cudaFree(bins);
}

void ok_progress_lambda_called_after_the_wait(int n) {
    unsigned* bins;
    cudaMallocManaged(&bins, n * sizeof(unsigned));
    std::function<void(const char*)> report = [&](const char* stage) {
        printf("[%s] first bin %u\n", stage, bins[0]);
    };
    fill_bins<<<(n + 255) / 256, 256>>>(bins, n);
    cudaDeviceSynchronize();
    report("done");
    cudaFree(bins);
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

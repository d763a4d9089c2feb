// A copy's stated direction (its `cudaMemcpyKind`, or a driver function of one direction)
// against where its memory was allocated. Each `fires_*` has an `ok_*` twin.
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>

const int N = 1 << 16;

void fires_upload_with_destination_and_source_swapped() {
    float* h = (float*)malloc(N * sizeof(float));
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyHostToDevice); //~ memcpy_kind_mismatch
    cudaFree(d);
    free(h);
}

void ok_upload_in_the_stated_direction() {
    float* h = (float*)malloc(N * sizeof(float));
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(d);
    free(h);
}

void fires_async_readback_with_the_upload_kind(cudaStream_t s) {
    std::vector<int> out(N);
    int* d;
    cudaMalloc(&d, N * sizeof(int));
    cudaMemcpyAsync(out.data(), d, N * sizeof(int), cudaMemcpyHostToDevice, s); //~ memcpy_kind_mismatch
    cudaStreamSynchronize(s);
}

void ok_readback_with_the_default_kind() {
    std::vector<int> out(N);
    int* d;
    cudaMalloc(&d, N * sizeof(int));
    cudaMemcpy(out.data(), d, N * sizeof(int), cudaMemcpyDefault);
}

void fires_readback_into_device_memory() {
    float *a, *b;
    cudaMalloc(&a, N * sizeof(float));
    cudaMalloc(&b, N * sizeof(float));
    cudaMemcpy(b, a, N * sizeof(float), cudaMemcpyDeviceToHost); //~ memcpy_kind_mismatch
}

void ok_device_to_device_between_allocations() {
    float *a, *b;
    cudaMalloc(&a, N * sizeof(float));
    cudaMalloc(&b, N * sizeof(float));
    cudaMemcpy(b, a, N * sizeof(float), cudaMemcpyDeviceToDevice);
}

void fires_driver_readback_from_host_memory(CUdeviceptr unused) {
    float host[256];
    float out[256];
    cuMemcpyDtoH(out, (CUdeviceptr)host, sizeof(host)); //~ memcpy_kind_mismatch
}

void ok_managed_memory_is_either_side() {
    float *m, *d;
    cudaMallocManaged(&m, N * sizeof(float));
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(m, d, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(d, m, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(m, d, N * sizeof(float), cudaMemcpyDeviceToDevice);
}

void ok_pointer_a_caller_gave(float* maybe_host) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(maybe_host, d, N * sizeof(float), cudaMemcpyDeviceToDevice);
}

// The kind through a named constant or a macro, the pointers at an offset.
static const cudaMemcpyKind kToDevice = cudaMemcpyHostToDevice;
#define D2H cudaMemcpyDeviceToHost

void fires_readback_with_the_upload_constant() {
    float* out = new float[N];
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(out, d, N * sizeof(float), kToDevice); //~ memcpy_kind_mismatch
    delete[] out;
}

void ok_readback_with_the_readback_macro() {
    float* out = new float[N];
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(out, d, N * sizeof(float), D2H);
    delete[] out;
}

void fires_chunk_readback_at_an_offset_with_the_upload_kind(cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, N * sizeof(float));
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    for (int off = 0; off < N; off += 1024) {
        cudaMemcpyAsync(h + off, d + off, 1024 * sizeof(float), kToDevice, s); //~ memcpy_kind_mismatch
    }
    cudaStreamSynchronize(s);
}

// `cudaMemcpyHostToHost`: both sides host memory.
void fires_host_to_host_from_device_memory() {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    float* h = (float*)malloc(N * sizeof(float));
    cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyHostToHost); //~ memcpy_kind_mismatch
    free(h);
}

void ok_host_to_host_between_host_buffers() {
    float* a = (float*)malloc(N * sizeof(float));
    std::vector<float> b(N);
    cudaMemcpy(b.data(), a, N * sizeof(float), cudaMemcpyHostToHost);
    free(a);
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

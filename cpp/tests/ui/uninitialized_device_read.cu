// uninitialized_device_read: device memory read before anything wrote it.
#include <cuda_runtime.h>
#include <vector>

#define N 4096

__global__ void mult(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i];
}

__global__ void accumulate(float* c, const float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] += a[i];
}

__global__ void fill(float* x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

void cublas_like_fill(float* d, int n);

void fires_kernel_reads_what_was_never_uploaded(const std::vector<float>& a) {
    float *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, N * sizeof(float));
    cudaMalloc(&d_b, N * sizeof(float));
    cudaMalloc(&d_c, N * sizeof(float));
    cudaMemcpy(d_a, a.data(), N * sizeof(float), cudaMemcpyHostToDevice);
    mult<<<N / 256, 256>>>(d_a, d_b, d_c, N); //~ uninitialized_device_read
    std::vector<float> c(N);
    cudaMemcpy(c.data(), d_c, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
}

void fires_copy_out_of_a_fresh_allocation(std::vector<float>& out) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemcpy(out.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost); //~ uninitialized_device_read
    cudaFree(d);
}

void ok_memset_first(std::vector<float>& out) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemset(d, 0, N * sizeof(float));
    cudaMemcpy(out.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}

void ok_in_place_kernel_may_write_first(const float* d_a, std::vector<float>& out) {
    float* d_c;
    cudaMalloc(&d_c, N * sizeof(float));
    accumulate<<<N / 256, 256>>>(d_c, d_a, N);
    cudaMemcpy(out.data(), d_c, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_c);
}

void ok_init_kernel_first(std::vector<float>& out) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    fill<<<N / 256, 256>>>(d, 1.0f, N);
    cudaMemcpy(out.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}

void ok_library_fills_it(std::vector<float>& out) {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    cublas_like_fill(d, N);
    cudaMemcpy(out.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}

void ok_uploaded_on_one_branch(bool warm, const std::vector<float>& guess, float* d_c) {
    float* d_g;
    cudaMalloc(&d_g, N * sizeof(float));
    if (warm) {
        cudaMemcpy(d_g, guess.data(), N * sizeof(float), cudaMemcpyHostToDevice);
    }
    mult<<<N / 256, 256>>>(d_g, d_g, d_c, N);
    cudaFree(d_g); //~ relies_on_implicit_sync
}

void ok_managed_memory_written_by_the_host(std::vector<float>& out) {
    float* m;
    cudaMallocManaged(&m, N * sizeof(float));
    cudaMemcpy(out.data(), m, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(m);
}

void ok_failed_allocation_is_not_read(std::vector<float>& out) {
    float* d;
    if (cudaMalloc(&d, N * sizeof(float)) != cudaSuccess) {
        return;
    }
    cudaMemset(d, 0, N * sizeof(float));
    cudaMemcpy(out.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}

// unread_kernel_output: memory a kernel wrote, freed or left at the end without being read.
#include <cuda_runtime.h>
#include <vector>

#define N 4096

__global__ void square(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

__global__ void reduce(const float* in, float* sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, in[i]);
}

void consume(const float* d, int n);

void fires_result_freed_without_the_copy_back(const std::vector<float>& h) {
    float *d_in, *d_out;
    cudaMalloc(&d_in, N * sizeof(float));
    cudaMalloc(&d_out, N * sizeof(float));
    cudaMemcpy(d_in, h.data(), N * sizeof(float), cudaMemcpyHostToDevice);
    square<<<N / 256, 256>>>(d_in, d_out, N);
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaFree(d_out); //~ unread_kernel_output
}

void ok_result_copied_back(const std::vector<float>& h, std::vector<float>& r) {
    float *d_in, *d_out;
    cudaMalloc(&d_in, N * sizeof(float));
    cudaMalloc(&d_out, N * sizeof(float));
    cudaMemcpy(d_in, h.data(), N * sizeof(float), cudaMemcpyHostToDevice);
    square<<<N / 256, 256>>>(d_in, d_out, N);
    cudaMemcpy(r.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
}

void ok_second_kernel_reads_it(const std::vector<float>& h, float* result) {
    float *d_in, *d_sq, *d_sum;
    cudaMalloc(&d_in, N * sizeof(float));
    cudaMalloc(&d_sq, N * sizeof(float));
    cudaMalloc(&d_sum, sizeof(float));
    cudaMemcpy(d_in, h.data(), N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_sum, 0, sizeof(float));
    square<<<N / 256, 256>>>(d_in, d_sq, N);
    reduce<<<N / 256, 256>>>(d_sq, d_sum, N);
    cudaMemcpy(result, d_sum, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_sq);
    cudaFree(d_sum);
}

void ok_library_reads_it(const std::vector<float>& h) {
    float *d_in, *d_out;
    cudaMalloc(&d_in, N * sizeof(float));
    cudaMalloc(&d_out, N * sizeof(float));
    cudaMemcpy(d_in, h.data(), N * sizeof(float), cudaMemcpyHostToDevice);
    square<<<N / 256, 256>>>(d_in, d_out, N);
    consume(d_out, N);
    cudaFree(d_in); //~ relies_on_implicit_sync
    cudaFree(d_out);
}

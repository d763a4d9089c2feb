// case: a weight loader allocates a raw staging buffer and the transposed weight buffer, then throws std::runtime_error when the upload fails, losing both allocations (the success path hands the weights to the caller, who frees them)
// expect: device_memory_leak=2
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>
#include <cuda_runtime.h>

constexpr int ROWS = 1024;
constexpr int COLS = 768;

__global__ void transpose_to_col_major(const float* raw, float* out, int rows, int cols) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && c < cols) out[c * rows + r] = raw[r * cols + c];
}

__global__ void column_sums(const float* w, float* sums, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.f;
    for (int r = 0; r < rows; ++r) s += w[c * rows + r];
    sums[c] = s;
}

static void throw_on_error(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

float* load_layer(const std::vector<float>& host_row_major) {
    const size_t bytes = sizeof(float) * ROWS * COLS;
    float* d_raw = nullptr;
    float* d_weights = nullptr;
    throw_on_error(cudaMalloc(&d_raw, bytes), "alloc raw"); // EXPECT: device_memory_leak
    cudaError_t e = cudaMalloc(&d_weights, bytes); // EXPECT: device_memory_leak
    if (e != cudaSuccess) {
        cudaFree(d_raw);
        throw_on_error(e, "alloc weights");
    }
    e = cudaMemcpy(d_raw, host_row_major.data(), bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("upload: ") + cudaGetErrorString(e));

    dim3 block(32, 8);
    dim3 grid((COLS + 31) / 32, (ROWS + 7) / 8);
    transpose_to_col_major<<<grid, block>>>(d_raw, d_weights, ROWS, COLS);
    cudaDeviceSynchronize();
    cudaFree(d_raw);
    return d_weights;
}

int main() {
    std::vector<float> w(ROWS * COLS);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.001f * (float)(i % 1000);

    try {
        float* d_w = load_layer(w);
        float* d_sums = nullptr;
        cudaMalloc(&d_sums, sizeof(float) * COLS);
        column_sums<<<(COLS + 127) / 128, 128>>>(d_w, d_sums, ROWS, COLS);
        std::vector<float> sums(COLS);
        cudaMemcpy(sums.data(), d_sums, sizeof(float) * COLS, cudaMemcpyDeviceToHost);
        printf("sum of column 0: %f\n", sums[0]);
        cudaFree(d_sums);
        cudaFree(d_w);
    } catch (const std::exception& ex) {
        fprintf(stderr, "error: %s\n", ex.what());
        return 1;
    }
    return 0;
}

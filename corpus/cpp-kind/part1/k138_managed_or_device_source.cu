// case: a reduction benchmark puts its output either in managed or in plain device memory depending on a flag, then reads it back with DeviceToHost, which is right for both kinds of memory.
// expect: none
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

__global__ void rowSums(const float* m, float* sums, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += m[r * cols + c];
    sums[r] = s;
}

int main(int argc, char** argv) {
    const bool useManaged = argc > 1 && strcmp(argv[1], "--managed") == 0;
    const int rows = 4096, cols = 512;
    std::vector<float> mat((size_t)rows * cols, 1.0f), sums(rows);

    float* d_mat;
    cudaMalloc(&d_mat, mat.size() * sizeof(float));
    cudaMemcpy(d_mat, mat.data(), mat.size() * sizeof(float), cudaMemcpyHostToDevice);

    float* out;
    if (useManaged)
        cudaMallocManaged(&out, rows * sizeof(float));
    else
        cudaMalloc(&out, rows * sizeof(float));

    rowSums<<<(rows + 127) / 128, 128>>>(d_mat, out, rows, cols);
    cudaDeviceSynchronize();
    cudaMemcpy(sums.data(), out, rows * sizeof(float), cudaMemcpyDeviceToHost);

    printf("%s: sums[0] = %f (expect %d)\n", useManaged ? "managed" : "device", sums[0], cols);
    cudaFree(out);
    cudaFree(d_mat);
    return 0;
}

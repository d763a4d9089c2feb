// case: a GEMV benchmark owns all its memory through RAII wrappers from cuda_raii.cuh and returns early from a helper through a status macro; the stream guard is declared after the buffers so it synchronizes before they are freed on every return, results are read only after a stream synchronize, and nothing leaks, so the code is correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>

#include "cuda_raii.cuh"

#define RETURN_IF_ERROR(call)                                                    \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) return e_;                                        \
    } while (0)

__global__ void gemv_rows(const float* a, const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = 0; c < cols; ++c) acc += a[size_t(r) * cols + c] * x[c];
    y[r] = acc;
}

static cudaError_t run_gemv(int rows, int cols, double* checksum) {
    PinnedBuffer<float> h_a(size_t(rows) * cols), h_x(cols), h_y(rows);
    DeviceBuffer<float> d_a(size_t(rows) * cols), d_x(cols), d_y(rows);
    StreamGuard stream;  // destroyed first: waits for the work below on every return path

    for (size_t i = 0; i < size_t(rows) * cols; ++i) h_a[i] = float(i % 5) - 2.f;
    for (int c = 0; c < cols; ++c) h_x[c] = 1.f / float(c + 1);

    RETURN_IF_ERROR(cudaMemcpyAsync(d_a.get(), h_a.get(), h_a.bytes(), cudaMemcpyHostToDevice, stream.get()));
    RETURN_IF_ERROR(cudaMemcpyAsync(d_x.get(), h_x.get(), h_x.bytes(), cudaMemcpyHostToDevice, stream.get()));
    gemv_rows<<<(rows + 127) / 128, 128, 0, stream.get()>>>(d_a.get(), d_x.get(), d_y.get(), rows, cols);
    RETURN_IF_ERROR(cudaGetLastError());
    RETURN_IF_ERROR(cudaMemcpyAsync(h_y.get(), d_y.get(), h_y.bytes(), cudaMemcpyDeviceToHost, stream.get()));
    RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));

    double s = 0.0;
    for (int r = 0; r < rows; ++r) s += h_y[r];
    *checksum = s;
    return cudaSuccess;
}

int main() {
    double checksum = 0.0;
    cudaError_t err = run_gemv(8192, 4096, &checksum);
    if (err != cudaSuccess) {
        fprintf(stderr, "gemv failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    printf("checksum %.6f\n", checksum);
    return 0;
}

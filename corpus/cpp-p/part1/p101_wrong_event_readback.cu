// case: two-stream saxpy pipeline (upload on a copy stream, event, compute and readback on a compute stream); the host waits on the upload event instead of the compute stream and reads the pinned result while the readback may still run.
// expect: missing_sync=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void saxpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 1 << 22;
    const size_t bytes = n * sizeof(float);
    float *h_x, *h_y, *d_x, *d_y;
    CHECK(cudaMallocHost(&h_x, bytes));
    CHECK(cudaMallocHost(&h_y, bytes));
    for (int i = 0; i < n; ++i) { h_x[i] = 1.0f; h_y[i] = 2.0f; }
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));

    cudaStream_t s_copy, s_comp;
    CHECK(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s_comp, cudaStreamNonBlocking));
    cudaEvent_t uploaded;
    CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

    CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, s_copy));
    CHECK(cudaMemcpyAsync(d_y, h_y, bytes, cudaMemcpyHostToDevice, s_copy));
    CHECK(cudaEventRecord(uploaded, s_copy));
    CHECK(cudaStreamWaitEvent(s_comp, uploaded, 0));
    saxpy<<<(n + 255) / 256, 256, 0, s_comp>>>(d_x, d_y, 3.0f, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, s_comp));

    // BUG: this only waits for the uploads on s_copy, not for the readback on s_comp
    CHECK(cudaEventSynchronize(uploaded));
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += h_y[i];  // EXPECT: missing_sync
    printf("sum = %f (expected %f)\n", sum, 5.0 * n);

    CHECK(cudaStreamSynchronize(s_comp));
    CHECK(cudaEventDestroy(uploaded));
    CHECK(cudaStreamDestroy(s_copy));
    CHECK(cudaStreamDestroy(s_comp));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFreeHost(h_x));
    CHECK(cudaFreeHost(h_y));
    return 0;
}

// case: an upload stream and a compute stream are chained with cudaEventRecord/cudaStreamWaitEvent, and the host waits on an event recorded after the download on the compute stream before reading; every cross-stream and host access is ordered
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "line %d: %s\n", __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

__global__ void blur3(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    float s = 0.f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) s += in[(y + dy) * w + x + dx];
    out[y * w + x] = s / 9.f;
}

int main() {
    const int w = 4096, h = 2048;
    const size_t bytes = size_t(w) * h * sizeof(float);
    cudaStream_t upload, compute;
    CHECK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    cudaEvent_t uploaded, downloaded;
    CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&downloaded, cudaEventDisableTiming));

    float *h_img, *h_out, *d_img, *d_out;
    CHECK(cudaMallocHost(&h_img, bytes));
    CHECK(cudaMallocHost(&h_out, bytes));
    CHECK(cudaMalloc(&d_img, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    for (size_t i = 0; i < size_t(w) * h; ++i) h_img[i] = float(i % w);

    CHECK(cudaMemcpyAsync(d_img, h_img, bytes, cudaMemcpyHostToDevice, upload));
    CHECK(cudaEventRecord(uploaded, upload));
    CHECK(cudaStreamWaitEvent(compute, uploaded, 0));
    CHECK(cudaMemsetAsync(d_out, 0, bytes, compute));
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    blur3<<<grid, block, 0, compute>>>(d_img, d_out, w, h);
    CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, compute));
    CHECK(cudaEventRecord(downloaded, compute));

    CHECK(cudaEventSynchronize(downloaded));
    printf("out[center]=%f\n", h_out[(h / 2) * w + w / 2]);

    CHECK(cudaStreamSynchronize(upload));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_img));
    CHECK(cudaFreeHost(h_out));
    CHECK(cudaFreeHost(h_img));
    CHECK(cudaEventDestroy(downloaded));
    CHECK(cudaEventDestroy(uploaded));
    CHECK(cudaStreamDestroy(compute));
    CHECK(cudaStreamDestroy(upload));
    return 0;
}

// case: a three-stream pipeline struct (upload, compute, download) chained by events runs a GELU layer; the caller synchronizes the compute stream and then reads the pinned output, but the device-to-host copy was enqueued on the download stream, which nothing waited for.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_OK(call)                                                            \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(e_));        \
            std::abort();                                                        \
        }                                                                        \
    } while (0)

struct Pipeline {
    cudaStream_t upload;
    cudaStream_t compute;
    cudaStream_t download;
    cudaEvent_t uploaded;
    cudaEvent_t computed;
    float* h_in;
    float* h_out;
    float* d_in;
    float* d_out;
    size_t n;
};

__global__ void gelu(const float* __restrict__ x, float* __restrict__ y, size_t n) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

static void pipeline_init(Pipeline& p, size_t n) {
    p.n = n;
    CUDA_OK(cudaStreamCreateWithFlags(&p.upload, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&p.compute, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&p.download, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreateWithFlags(&p.uploaded, cudaEventDisableTiming));
    CUDA_OK(cudaEventCreateWithFlags(&p.computed, cudaEventDisableTiming));
    CUDA_OK(cudaMallocHost(&p.h_in, n * sizeof(float)));
    CUDA_OK(cudaMallocHost(&p.h_out, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&p.d_in, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&p.d_out, n * sizeof(float)));
}

static void pipeline_run(Pipeline& p) {
    const size_t bytes = p.n * sizeof(float);
    CUDA_OK(cudaMemcpyAsync(p.d_in, p.h_in, bytes, cudaMemcpyHostToDevice, p.upload));
    CUDA_OK(cudaEventRecord(p.uploaded, p.upload));
    CUDA_OK(cudaStreamWaitEvent(p.compute, p.uploaded, 0));
    gelu<<<unsigned((p.n + 255) / 256), 256, 0, p.compute>>>(p.d_in, p.d_out, p.n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaEventRecord(p.computed, p.compute));
    CUDA_OK(cudaStreamWaitEvent(p.download, p.computed, 0));
    CUDA_OK(cudaMemcpyAsync(p.h_out, p.d_out, bytes, cudaMemcpyDeviceToHost, p.download));
}

static void pipeline_destroy(Pipeline& p) {
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaFree(p.d_in));
    CUDA_OK(cudaFree(p.d_out));
    CUDA_OK(cudaFreeHost(p.h_in));
    CUDA_OK(cudaFreeHost(p.h_out));
    CUDA_OK(cudaEventDestroy(p.uploaded));
    CUDA_OK(cudaEventDestroy(p.computed));
    CUDA_OK(cudaStreamDestroy(p.upload));
    CUDA_OK(cudaStreamDestroy(p.compute));
    CUDA_OK(cudaStreamDestroy(p.download));
}

int main() {
    Pipeline p{};
    pipeline_init(p, size_t(1) << 24);
    for (size_t i = 0; i < p.n; ++i) p.h_in[i] = float(int(i % 2001) - 1000) / 250.f;

    pipeline_run(p);
    CUDA_OK(cudaStreamSynchronize(p.compute));

    size_t negatives = 0;
    for (size_t i = 0; i < p.n; ++i) {
        if (p.h_out[i] < 0.f) ++negatives; // EXPECT: missing_sync
    }
    printf("%zu of %zu activations negative\n", negatives, p.n);

    pipeline_destroy(p);
    return 0;
}

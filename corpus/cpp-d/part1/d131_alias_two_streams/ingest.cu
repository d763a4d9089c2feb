// case: ingest stage that maps one physical allocation twice (helpers in vmm_views.cuh): the upload stream copies a batch in through the first view while the compute stream, with no event between them, runs a histogram kernel over the same bytes through the second view.
// expect: unfenced_vmm_alias=1
#include "vmm_views.cuh"
#include <cuda_runtime.h>
#include <cstdint>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

__global__ void byte_histogram(const uint8_t* data, size_t n, unsigned int* hist)
{
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    const size_t bytes = round_to_granularity(size_t(32) << 20, 0);
    CUmemGenericAllocationHandle h = create_physical(0, bytes);
    View upload_view = map_view(h, bytes, 0);
    View compute_view = map_view(h, bytes, 0);

    uint8_t* h_batch = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_batch, bytes));
    for (size_t i = 0; i < bytes; ++i) h_batch[i] = (uint8_t)((i * 131) ^ (i >> 9));

    unsigned int* d_hist = nullptr;
    CUDA_CHECK(cudaMalloc(&d_hist, 256 * sizeof(unsigned int)));
    cudaStream_t s_upload, s_compute;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_upload, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, 256 * sizeof(unsigned int), s_compute));

    CUDA_CHECK(cudaMemcpyAsync(reinterpret_cast<void*>(upload_view.va), h_batch, bytes,
                               cudaMemcpyHostToDevice, s_upload));
    byte_histogram<<<512, 256, 0, s_compute>>>(reinterpret_cast<const uint8_t*>(compute_view.va), bytes, d_hist); // EXPECT: unfenced_vmm_alias

    CUDA_CHECK(cudaStreamSynchronize(s_upload));
    CUDA_CHECK(cudaStreamSynchronize(s_compute));
    unsigned int hist[256];
    CUDA_CHECK(cudaMemcpy(hist, d_hist, sizeof(hist), cudaMemcpyDeviceToHost));
    unsigned long long total = 0;
    for (unsigned int c : hist) total += c;
    printf("ingest: %llu bytes histogrammed, zeros %u\n", total, hist[0]);

    CUDA_CHECK(cudaStreamDestroy(s_upload));
    CUDA_CHECK(cudaStreamDestroy(s_compute));
    CUDA_CHECK(cudaFree(d_hist));
    CUDA_CHECK(cudaFreeHost(h_batch));
    unmap_view(compute_view);
    unmap_view(upload_view);
    CU_CHECK(cuMemRelease(h));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

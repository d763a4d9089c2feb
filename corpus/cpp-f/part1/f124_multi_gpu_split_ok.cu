// case: a seismic migration job splits traces across every GPU, each shard copying its image slice into portable pinned memory on its own stream, and the host selects each device and synchronizes each shard's stream before stitching the slices.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct Shard {
    int device = 0;
    int first_trace = 0, ntraces = 0;
    cudaStream_t stream = nullptr;
    float* d_traces = nullptr;
    float* d_image = nullptr;
    float* h_image = nullptr;
};

__global__ void kirchhoff_slice(const float* traces, float* image, int ntraces, int nsamples, float velocity) {
    int t = blockIdx.x, z = threadIdx.x + blockIdx.y * blockDim.x;
    if (t >= ntraces || z >= nsamples) return;
    int src = min(nsamples - 1, (int)(z * 2.f / velocity));
    image[(size_t)t * nsamples + z] = traces[(size_t)t * nsamples + src];
}

int main() {
    int ngpu = 0;
    CUDA_CHECK(cudaGetDeviceCount(&ngpu));
    ngpu = std::max(1, std::min(ngpu, 4));
    const int total_traces = 24000, nsamples = 1024;
    const int per = (total_traces + ngpu - 1) / ngpu;

    std::vector<Shard> shards(ngpu);
    for (int g = 0; g < ngpu; ++g) {
        Shard& sh = shards[g];
        sh.device = g;
        sh.first_trace = g * per;
        sh.ntraces = std::min(per, total_traces - sh.first_trace);
        const size_t bytes = (size_t)sh.ntraces * nsamples * sizeof(float);
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaStreamCreateWithFlags(&sh.stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&sh.d_traces, bytes));
        CUDA_CHECK(cudaMalloc(&sh.d_image, bytes));
        CUDA_CHECK(cudaHostAlloc(&sh.h_image, bytes, cudaHostAllocPortable));
        CUDA_CHECK(cudaMemsetAsync(sh.d_traces, 0, bytes, sh.stream));
        kirchhoff_slice<<<dim3(sh.ntraces, (nsamples + 255) / 256), 256, 0, sh.stream>>>(
            sh.d_traces, sh.d_image, sh.ntraces, nsamples, 2.5f);
        CUDA_CHECK(cudaMemcpyAsync(sh.h_image, sh.d_image, bytes, cudaMemcpyDeviceToHost, sh.stream));
    }

    for (Shard& sh : shards) {
        CUDA_CHECK(cudaSetDevice(sh.device));
        CUDA_CHECK(cudaStreamSynchronize(sh.stream));
    }

    std::vector<float> image((size_t)total_traces * nsamples);
    for (const Shard& sh : shards)
        std::copy(sh.h_image, sh.h_image + (size_t)sh.ntraces * nsamples,
                  image.begin() + (size_t)sh.first_trace * nsamples);
    printf("stitched %d traces from %d GPUs, sample %.3f\n", total_traces, ngpu, image[nsamples / 2]);

    for (Shard& sh : shards) {
        CUDA_CHECK(cudaSetDevice(sh.device));
        CUDA_CHECK(cudaFreeHost(sh.h_image));
        CUDA_CHECK(cudaFree(sh.d_image));
        CUDA_CHECK(cudaFree(sh.d_traces));
        CUDA_CHECK(cudaStreamDestroy(sh.stream));
    }
    return 0;
}

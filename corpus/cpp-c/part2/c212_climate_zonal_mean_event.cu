// case: a climate post-processor reduces zonal-mean temperatures on a worker stream, copies them into pinned memory, records an event and waits on it with cudaEventSynchronize before writing the means out
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(x)                                                                     \
    do {                                                                                  \
        cudaError_t err = (x);                                                            \
        if (err != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(err));         \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

// One block per latitude row: mean over longitudes of one level.
__global__ void zonal_mean(const float* t, float* mean, int nlon, int nlat) {
    extern __shared__ float part[];
    int lat = blockIdx.x;
    float s = 0.f;
    for (int lon = threadIdx.x; lon < nlon; lon += blockDim.x) s += t[(size_t)lat * nlon + lon];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) mean[lat] = part[0] / nlon;
}

__global__ void fake_temperature(float* t, int nlon, int nlat) {
    int lon = blockIdx.x * blockDim.x + threadIdx.x, lat = blockIdx.y;
    if (lon < nlon) t[(size_t)lat * nlon + lon] = 288.f - 40.f * fabsf((lat - nlat / 2) / (float)nlat) * 2.f;
}

struct PinnedDeleter { void operator()(float* p) const { cudaFreeHost(p); } };
using PinnedFloats = std::unique_ptr<float[], PinnedDeleter>;

static PinnedFloats make_pinned(size_t n) {
    float* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, n * sizeof(float)));
    return PinnedFloats(p);
}

int main() {
    const int nlon = 2880, nlat = 1441;
    float *d_t = nullptr, *d_mean = nullptr;
    CUDA_CHECK(cudaMalloc(&d_t, (size_t)nlon * nlat * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_mean, nlat * sizeof(float)));
    PinnedFloats h_mean = make_pinned(nlat);

    cudaStream_t worker;
    cudaEvent_t means_ready;
    CUDA_CHECK(cudaStreamCreateWithFlags(&worker, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&means_ready, cudaEventDisableTiming));

    fake_temperature<<<dim3((nlon + 255) / 256, nlat), 256, 0, worker>>>(d_t, nlon, nlat);
    zonal_mean<<<nlat, 256, 256 * sizeof(float), worker>>>(d_t, d_mean, nlon, nlat);
    CUDA_CHECK(cudaMemcpyAsync(h_mean.get(), d_mean, nlat * sizeof(float), cudaMemcpyDeviceToHost, worker));
    CUDA_CHECK(cudaEventRecord(means_ready, worker));

    // open the output file, write the header... while the GPU works
    std::FILE* out = std::fopen("zonal_mean.csv", "w");
    if (out) std::fprintf(out, "lat_index,t_mean_K\n");

    CUDA_CHECK(cudaEventSynchronize(means_ready));
    double global = 0.0;
    for (int lat = 0; lat < nlat; ++lat) {
        global += h_mean[lat];
        if (out) std::fprintf(out, "%d,%.3f\n", lat, h_mean[lat]);
    }
    if (out) std::fclose(out);
    std::printf("global mean %.2f K\n", global / nlat);

    CUDA_CHECK(cudaEventDestroy(means_ready));
    CUDA_CHECK(cudaStreamDestroy(worker));
    CUDA_CHECK(cudaFree(d_mean));
    CUDA_CHECK(cudaFree(d_t));
    return 0;
}

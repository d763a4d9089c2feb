// case: point-cloud normalizer whose host vector and device buffer are sized from a count read out of the file header: sizes and byte counts are run-time values
// expect: none
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s\n", cudaGetErrorString(e));            \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr size_t kHeaderPoints = 4096;  // default cloud when no file is given

__global__ void center(float4 *pts, int n, float4 mean)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        pts[i].x -= mean.x;
        pts[i].y -= mean.y;
        pts[i].z -= mean.z;
    }
}

int main(int argc, char **argv)
{
    std::vector<float4> cloud;
    uint32_t count = 0;
    if (argc > 1) {
        std::ifstream in(argv[1], std::ios::binary);
        in.read(reinterpret_cast<char *>(&count), sizeof(count));
        cloud.resize(count);
        in.read(reinterpret_cast<char *>(cloud.data()), std::streamsize(count) * sizeof(float4));
    } else {
        count = kHeaderPoints;
        cloud.resize(count);
        for (uint32_t i = 0; i < count; ++i) cloud[i] = make_float4(float(i % 16), float(i / 16 % 16), float(i / 256), 1.f);
    }
    if (count == 0) return 0;

    float4 mean = make_float4(0.f, 0.f, 0.f, 0.f);
    for (const float4 &p : cloud) { mean.x += p.x; mean.y += p.y; mean.z += p.z; }
    mean.x /= count; mean.y /= count; mean.z /= count;

    float4 *d_pts;
    const size_t bytes = size_t(count) * sizeof(float4);
    CUDA_CHECK(cudaMalloc(&d_pts, bytes));
    CUDA_CHECK(cudaMemcpy(d_pts, cloud.data(), bytes, cudaMemcpyHostToDevice));
    center<<<(count + 255) / 256, 256>>>(d_pts, int(count), mean);
    CUDA_CHECK(cudaMemcpy(cloud.data(), d_pts, bytes, cudaMemcpyDeviceToHost));

    std::printf("first point after centering: %f %f %f\n", cloud[0].x, cloud[0].y, cloud[0].z);
    CUDA_CHECK(cudaFree(d_pts));
    return 0;
}

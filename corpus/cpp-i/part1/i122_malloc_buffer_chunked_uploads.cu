// case: a point-cloud loader reads a malloc'd buffer and streams it to the device in 4 MiB chunks with cudaMemcpyAsync, so every chunk is a pageable async copy
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t r = (x); if (r != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(r)); exit(1); } } while (0)

struct Point { float x, y, z, intensity; };

__global__ void voxel_count(const Point* pts, size_t n, float cell, int dim, unsigned* grid) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    int gx = min(max((int)(pts[i].x / cell), 0), dim - 1);
    int gy = min(max((int)(pts[i].y / cell), 0), dim - 1);
    atomicAdd(&grid[gy * dim + gx], 1u);
}

static Point* read_cloud(size_t n) {
    Point* pts = (Point*)malloc(n * sizeof(Point));
    if (!pts) exit(1);
    for (size_t i = 0; i < n; ++i)
        pts[i] = Point{(float)(i % 1000) * 0.1f, (float)(i / 1000 % 1000) * 0.1f, 0.f, 1.f};
    return pts;
}

int main() {
    const size_t n = 8u << 20;
    const size_t chunk_pts = (4u << 20) / sizeof(Point);
    const int dim = 512;
    Point* h_pts = read_cloud(n);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Point* d_pts;
    unsigned* d_grid;
    CUDA_CHECK(cudaMalloc(&d_pts, n * sizeof(Point)));
    CUDA_CHECK(cudaMalloc(&d_grid, dim * dim * sizeof(unsigned)));
    CUDA_CHECK(cudaMemsetAsync(d_grid, 0, dim * dim * sizeof(unsigned), s));

    for (size_t off = 0; off < n; off += chunk_pts) {
        size_t cnt = (n - off < chunk_pts) ? n - off : chunk_pts;
        CUDA_CHECK(cudaMemcpyAsync(d_pts + off, h_pts + off, cnt * sizeof(Point), // EXPECT: pageable_async_copy
                                   cudaMemcpyHostToDevice, s));
        voxel_count<<<(unsigned)((cnt + 255) / 256), 256, 0, s>>>(d_pts + off, cnt, 0.2f, dim, d_grid);
    }

    unsigned* h_grid = (unsigned*)malloc(dim * dim * sizeof(unsigned));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(h_grid, d_grid, dim * dim * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned occupied = 0;
    for (int i = 0; i < dim * dim; ++i) occupied += h_grid[i] ? 1 : 0;
    printf("occupied cells: %u\n", occupied);

    free(h_grid);
    CUDA_CHECK(cudaFree(d_grid));
    CUDA_CHECK(cudaFree(d_pts));
    CUDA_CHECK(cudaStreamDestroy(s));
    free(h_pts);
    return 0;
}

// case: LiDAR voxelizer: a validation block under #ifndef NDEBUG (compiled in the default build, which does not define NDEBUG) reads the occupied-voxel counter by dereferencing its cudaMalloc pointer on the host
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct Point { float x, y, z, intensity; };

__global__ void voxelize(const Point* pts, int n, unsigned int* grid, int dim, float voxel, unsigned int* occupied) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int vx = static_cast<int>(pts[i].x / voxel), vy = static_cast<int>(pts[i].y / voxel), vz = static_cast<int>(pts[i].z / voxel);
    if (vx < 0 || vy < 0 || vz < 0 || vx >= dim || vy >= dim || vz >= dim) return;
    unsigned int idx = (vz * dim + vy) * dim + vx;
    if (atomicAdd(&grid[idx], 1u) == 0u) atomicAdd(occupied, 1u);
}

class Voxelizer {
public:
    Voxelizer(int max_points, int dim, float voxel) : max_points_(max_points), dim_(dim), voxel_(voxel) {
        CUDA_CHECK(cudaMalloc(&d_points_, max_points_ * sizeof(Point)));
        CUDA_CHECK(cudaMalloc(&d_grid_, static_cast<size_t>(dim_) * dim_ * dim_ * sizeof(unsigned int)));
        CUDA_CHECK(cudaMalloc(&d_occupied_, sizeof(unsigned int)));
        CUDA_CHECK(cudaMallocHost(&h_points_, max_points_ * sizeof(Point)));
    }
    ~Voxelizer() {
        cudaDeviceSynchronize();
        cudaFreeHost(h_points_);
        cudaFree(d_occupied_);
        cudaFree(d_grid_);
        cudaFree(d_points_);
    }

    Point* staging() { return h_points_; }

    unsigned int run(int n, cudaStream_t s) {
        if (n > max_points_) return 0;
        CUDA_CHECK(cudaMemsetAsync(d_grid_, 0, static_cast<size_t>(dim_) * dim_ * dim_ * sizeof(unsigned int), s));
        CUDA_CHECK(cudaMemsetAsync(d_occupied_, 0, sizeof(unsigned int), s));
        CUDA_CHECK(cudaMemcpyAsync(d_points_, h_points_, n * sizeof(Point), cudaMemcpyHostToDevice, s));
        voxelize<<<(n + 255) / 256, 256, 0, s>>>(d_points_, n, d_grid_, dim_, voxel_, d_occupied_);
        unsigned int occupied = 0;
        CUDA_CHECK(cudaMemcpyAsync(&occupied, d_occupied_, sizeof(unsigned int), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
#ifndef NDEBUG
        unsigned int again = *this->d_occupied_; // EXPECT: host_deref_device_ptr
        if (again != occupied) std::fprintf(stderr, "voxel count mismatch %u vs %u\n", again, occupied);
#endif
        return occupied;
    }

private:
    int max_points_, dim_;
    float voxel_;
    Point* d_points_ = nullptr;
    unsigned int* d_grid_ = nullptr;
    unsigned int* d_occupied_ = nullptr;
    Point* h_points_ = nullptr;
};

int main() {
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    {
        Voxelizer vox(1 << 20, 256, 0.2f);
        Point* p = vox.staging();
        for (int i = 0; i < (1 << 20); ++i) p[i] = Point{(i % 1000) * 0.05f, (i % 777) * 0.06f, (i % 313) * 0.1f, 1.0f};
        std::printf("occupied voxels: %u\n", vox.run(1 << 20, s));
    }
    cudaStreamDestroy(s);
    return 0;
}

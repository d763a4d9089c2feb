// case: a lidar ground-segmentation node backs its voxel grid with a VMM mapping and clears it with cudaMemsetAsync right after cuMemMap, before cuMemSetAccess grants the device access to the mapping.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define DRV_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "driver call %s failed (%d)\n", #x, int(r_)); std::exit(1); } } while (0)
#define RT_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

struct Point { float x, y, z, intensity; };

__global__ void mark_ground(const Point* pts, int n, float* min_z, int grid_w, float cell) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = min(max(int(pts[i].x / cell) + grid_w / 2, 0), grid_w - 1);
    int cy = min(max(int(pts[i].y / cell) + grid_w / 2, 0), grid_w - 1);
    atomicMin(reinterpret_cast<int*>(&min_z[cy * grid_w + cx]), __float_as_int(pts[i].z + 100.0f));
}

class VoxelGrid {
public:
    static constexpr int kGridW = 1024;

    explicit VoxelGrid(cudaStream_t stream) : stream_(stream) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = 0;
        size_t gran = 0;
        DRV_CHECK(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        bytes_ = ((size_t(kGridW) * kGridW * sizeof(float) + gran - 1) / gran) * gran;
        DRV_CHECK(cuMemAddressReserve(&va_, bytes_, 0, 0, 0));
        DRV_CHECK(cuMemCreate(&handle_, bytes_, &prop_, 0));
        DRV_CHECK(cuMemMap(va_, bytes_, 0, handle_, 0));
        clear();
        grant();
    }
    ~VoxelGrid() {
        cudaStreamSynchronize(stream_);
        cuMemUnmap(va_, bytes_);
        cuMemRelease(handle_);
        cuMemAddressFree(va_, bytes_);
    }

    void clear() {
        // 0x7f bytes: a large positive float, so atomicMin keeps the lowest return
        RT_CHECK(cudaMemsetAsync(reinterpret_cast<void*>(va_), 0x7f, bytes_, stream_)); // EXPECT: vmm_lifecycle
    }
    void grant() {
        CUmemAccessDesc desc = {};
        desc.location = prop_.location;
        desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DRV_CHECK(cuMemSetAccess(va_, bytes_, &desc, 1));
    }
    float* cells() const { return reinterpret_cast<float*>(va_); }

private:
    cudaStream_t stream_;
    CUmemAllocationProp prop_ = {};
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr va_ = 0;
    size_t bytes_ = 0;
};

int main() {
    DRV_CHECK(cuInit(0));
    RT_CHECK(cudaSetDevice(0));
    cudaStream_t stream;
    RT_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const int n = 120000;
    Point* d_pts = nullptr;
    RT_CHECK(cudaMalloc(&d_pts, n * sizeof(Point)));
    RT_CHECK(cudaMemsetAsync(d_pts, 0, n * sizeof(Point), stream));
    {
        VoxelGrid grid(stream);
        mark_ground<<<(n + 255) / 256, 256, 0, stream>>>(d_pts, n, grid.cells(), VoxelGrid::kGridW, 0.2f);
        RT_CHECK(cudaStreamSynchronize(stream));
    }
    RT_CHECK(cudaFree(d_pts));
    RT_CHECK(cudaStreamDestroy(stream));
    return 0;
}

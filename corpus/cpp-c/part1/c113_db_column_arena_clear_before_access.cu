// case: a columnar database's ColumnArena reserves, creates and maps its VMM backing store in the constructor and clears it with cuMemsetD32Async through clear() before grant_access() calls cuMemSetAccess, so the memset runs on a mapping the device has no access to yet.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace colstore {

inline void cu(CUresult r, const char* where) {
    if (r != CUDA_SUCCESS) {
        const char* name = nullptr;
        cuGetErrorName(r, &name);
        throw std::runtime_error(std::string(where) + ": " + (name ? name : "?"));
    }
}

class ColumnArena {
public:
    ColumnArena(size_t rows, int device, CUstream stream)
        : rows_(rows), device_(device), stream_(stream) {
        CUmemAllocationProp prop{};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device_;
        size_t gran = 0;
        cu(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), "gran");
        bytes_ = (rows_ * sizeof(int32_t) + gran - 1) / gran * gran;
        cu(cuMemAddressReserve(&base_, bytes_, 0, 0, 0), "reserve");
        cu(cuMemCreate(&handle_, bytes_, &prop, 0), "create");
        cu(cuMemMap(base_, bytes_, 0, handle_, 0), "map");
        clear();          // start from NULL markers
        grant_access();
    }

    ~ColumnArena() {
        cuStreamSynchronize(stream_);
        cuMemUnmap(base_, bytes_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, bytes_);
    }

    void clear() {
        cu(cuMemsetD32Async(base_, 0x80000000u, bytes_ / sizeof(int32_t), stream_), "clear");  // EXPECT: vmm_lifecycle
    }

    int32_t* column() const { return reinterpret_cast<int32_t*>(base_); }
    size_t rows() const { return rows_; }

private:
    void grant_access() {
        CUmemAccessDesc desc{};
        desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        desc.location.id = device_;
        desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        cu(cuMemSetAccess(base_, bytes_, &desc, 1), "access");
    }

    size_t rows_;
    int device_;
    CUstream stream_;
    CUdeviceptr base_ = 0;
    CUmemGenericAllocationHandle handle_{};
    size_t bytes_ = 0;
};

__global__ void scatter_by_key(const int32_t* keys, const int32_t* vals, size_t n, int32_t* col, size_t rows) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) col[static_cast<size_t>(keys[i]) % rows] = vals[i];
}

}  // namespace colstore

int main() {
    cudaSetDevice(0);
    cudaFree(nullptr);
    cudaStream_t stream;
    cudaStreamCreate(&stream);

    const size_t rows = size_t(1) << 22;
    colstore::ColumnArena prices(rows, 0, stream);

    std::vector<int32_t> keys(rows / 2), vals(rows / 2);
    for (size_t i = 0; i < keys.size(); ++i) { keys[i] = static_cast<int32_t>(i * 2); vals[i] = static_cast<int32_t>(i); }
    int32_t *d_keys = nullptr, *d_vals = nullptr;
    cudaMalloc(&d_keys, keys.size() * sizeof(int32_t));
    cudaMalloc(&d_vals, vals.size() * sizeof(int32_t));
    cudaMemcpy(d_keys, keys.data(), keys.size() * sizeof(int32_t), cudaMemcpyHostToDevice);
    cudaMemcpy(d_vals, vals.data(), vals.size() * sizeof(int32_t), cudaMemcpyHostToDevice);

    colstore::scatter_by_key<<<(keys.size() + 255) / 256, 256, 0, stream>>>(d_keys, d_vals, keys.size(), prices.column(), prices.rows());
    cudaStreamSynchronize(stream);

    std::vector<int32_t> sample(16);
    cudaMemcpy(sample.data(), prices.column(), sample.size() * sizeof(int32_t), cudaMemcpyDeviceToHost);
    std::printf("row 2 = %d, row 3 = %d (NULL marker %d)\n", sample[2], sample[3], static_cast<int>(0x80000000u));

    cudaFree(d_keys);
    cudaFree(d_vals);
    return 0;
}

// case: a group-by operator's GrowableColumn reserves a large VA range once and maps chunks as it grows; every mapping, including the one that recycle_tail() makes after unmapping the old tail chunk, gets cuMemSetAccess before any kernel or memset uses it, handles are released right after mapping (CUDA keeps them alive), and teardown synchronizes, unmaps every chunk and then frees the range.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

static void drv(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) {
        const char* msg = nullptr;
        cuGetErrorString(r, &msg);
        throw std::runtime_error(std::string(what) + ": " + (msg ? msg : "?"));
    }
}

class GrowableColumn {
public:
    GrowableColumn(size_t max_bytes, int device) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        size_t gran = 0;
        drv(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), "granularity");
        chunk_ = 16 * gran;
        max_ = (max_bytes + chunk_ - 1) / chunk_ * chunk_;
        drv(cuMemAddressReserve(&va_, max_, chunk_, 0, 0), "reserve");
    }

    ~GrowableColumn() {
        cuCtxSynchronize();
        for (size_t off = 0; off < mapped_; off += chunk_) cuMemUnmap(va_ + off, chunk_);
        cuMemAddressFree(va_, max_);
    }

    void grow_to(size_t bytes) {
        if (bytes > max_) throw std::length_error("column exceeds its reservation");
        while (mapped_ < bytes) {
            map_chunk_at(mapped_);
            mapped_ += chunk_;
        }
    }

    // Swap the spill chunk at the end for fresh memory, zeroed on `stream`.
    void recycle_tail(CUstream stream) {
        drv(cuStreamSynchronize(stream), "drain");
        const size_t off = mapped_ - chunk_;
        drv(cuMemUnmap(va_ + off, chunk_), "unmap tail");
        map_chunk_at(off);
        drv(cuMemsetD32Async(va_ + off, 0, chunk_ / sizeof(uint32_t), stream), "zero tail");
    }

    uint32_t* data() const { return reinterpret_cast<uint32_t*>(va_); }
    size_t mapped_bytes() const { return mapped_; }

private:
    void map_chunk_at(size_t off) {
        CUmemGenericAllocationHandle h{};
        drv(cuMemCreate(&h, chunk_, &prop_, 0), "create");
        drv(cuMemMap(va_ + off, chunk_, 0, h, 0), "map");
        drv(cuMemRelease(h), "release");   // the mapping holds the memory until it is unmapped
        CUmemAccessDesc d{};
        d.location = prop_.location;
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        drv(cuMemSetAccess(va_ + off, chunk_, &d, 1), "access");
    }

    CUmemAllocationProp prop_{};
    CUdeviceptr va_ = 0;
    size_t max_ = 0;
    size_t chunk_ = 0;
    size_t mapped_ = 0;
};

__global__ void aggregate_counts(const uint32_t* group_ids, int rows, uint32_t* counts, size_t slots) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) atomicAdd(&counts[group_ids[r] % slots], 1u);
}

int main() {
    cudaSetDevice(0);
    cudaFree(nullptr);
    cudaStream_t s;
    cudaStreamCreate(&s);

    const int rows = 1 << 22;
    uint32_t* d_groups = nullptr;
    cudaMalloc(&d_groups, rows * sizeof(uint32_t));
    cudaMemsetAsync(d_groups, 0x11, rows * sizeof(uint32_t), s);

    GrowableColumn counts(size_t(1) << 30, 0);
    counts.grow_to(size_t(64) << 20);
    cudaMemsetAsync(counts.data(), 0, counts.mapped_bytes(), s);
    aggregate_counts<<<(rows + 255) / 256, 256, 0, s>>>(d_groups, rows, counts.data(), counts.mapped_bytes() / 4);

    counts.grow_to(size_t(128) << 20);   // more distinct groups than planned
    cudaMemsetAsync(reinterpret_cast<uint8_t*>(counts.data()) + (size_t(64) << 20), 0, size_t(64) << 20, s);
    aggregate_counts<<<(rows + 255) / 256, 256, 0, s>>>(d_groups, rows, counts.data(), counts.mapped_bytes() / 4);

    counts.recycle_tail(s);
    aggregate_counts<<<(rows + 255) / 256, 256, 0, s>>>(d_groups, rows, counts.data(), counts.mapped_bytes() / 4);
    cudaStreamSynchronize(s);

    uint32_t first = 0;
    cudaMemcpy(&first, counts.data(), sizeof(first), cudaMemcpyDeviceToHost);
    std::printf("count in slot 0: %u\n", first);

    cudaFree(d_groups);
    cudaStreamDestroy(s);
    return 0;
}

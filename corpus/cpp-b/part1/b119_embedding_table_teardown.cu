// case: sharded embedding table on VMM: the destructor releases the handle and frees the reserved range with cuMemAddressFree before cuMemUnmap, so the range is freed while still mapped
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                       \
    do {                                                                     \
        CUresult r_ = (call);                                                \
        if (r_ != CUDA_SUCCESS) {                                            \
            const char* msg_ = nullptr;                                      \
            cuGetErrorString(r_, &msg_);                                     \
            std::fprintf(stderr, "%s failed: %s\n", #call, msg_);            \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void gather_rows(const float* table, const int* ids, float* out, int n_ids, int dim) {
    int r = blockIdx.x;
    if (r >= n_ids) return;
    for (int c = threadIdx.x; c < dim; c += blockDim.x) out[r * dim + c] = table[static_cast<size_t>(ids[r]) * dim + c];
}

class EmbeddingTable {
public:
    EmbeddingTable(int device, size_t rows, int dim) : rows_(rows), dim_(dim) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        bytes_ = (rows_ * dim_ * sizeof(float) + gran - 1) / gran * gran;
        CU_CHECK(cuMemAddressReserve(&va_, bytes_, 0, 0, 0));
        CU_CHECK(cuMemCreate(&handle_, bytes_, &prop, 0));
        CU_CHECK(cuMemMap(va_, bytes_, 0, handle_, 0));
        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(va_, bytes_, &access, 1));
        CU_CHECK(cuMemsetD32(va_, 0, bytes_ / 4));
    }

    ~EmbeddingTable() {
        cuCtxSynchronize();
        cuMemRelease(this->handle_);
        cuMemAddressFree(this->va_, this->bytes_); // EXPECT: vmm_lifecycle
        cuMemUnmap(this->va_, this->bytes_);
    }

    const float* data() const { return reinterpret_cast<const float*>(va_); }
    int dim() const { return dim_; }

private:
    size_t rows_;
    int dim_;
    size_t bytes_ = 0;
    CUdeviceptr va_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);
    {
        EmbeddingTable table(0, 1 << 20, 128);
        std::vector<int> ids(4096);
        for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>((i * 977) % (1 << 20));
        int* d_ids = nullptr;
        float* d_out = nullptr;
        cudaMalloc(&d_ids, ids.size() * sizeof(int));
        cudaMalloc(&d_out, ids.size() * table.dim() * sizeof(float));
        cudaMemcpy(d_ids, ids.data(), ids.size() * sizeof(int), cudaMemcpyHostToDevice);
        gather_rows<<<static_cast<int>(ids.size()), 128>>>(table.data(), d_ids, d_out, static_cast<int>(ids.size()), table.dim());
        cudaDeviceSynchronize();
        cudaFree(d_out);
        cudaFree(d_ids);
    }
    std::puts("done");
    return 0;
}

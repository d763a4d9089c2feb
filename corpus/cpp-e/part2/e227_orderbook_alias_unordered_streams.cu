// case: a market-data order-book engine maps one physical book allocation at a writer range and a reader range; the update kernel writes through the writer view on one stream while the snapshot kernel reads through the reader view on another stream with no event between them.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s = %d\n", #x, int(r_)); std::exit(1); } } while (0)
#define RT_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

struct Level { int64_t price; int64_t qty; };
constexpr int kLevels = 1 << 16;

__global__ void apply_updates(Level* book, const int* idx, const int64_t* qty, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) book[idx[i]].qty = qty[i];
}

__global__ void snapshot(const Level* book, Level* out, int levels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < levels) out[i] = book[i];
}

class BookMemory {
public:
    BookMemory() {
        CUmemAllocationProp p = {};
        p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        p.location.id = 0;
        size_t g = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        bytes_ = (kLevels * sizeof(Level) + g - 1) / g * g;
        CU_CHECK(cuMemCreate(&handle_, bytes_, &p, 0));
        CU_CHECK(cuMemAddressReserve(&writer_, bytes_, 0, 0, 0));
        CU_CHECK(cuMemMap(writer_, bytes_, 0, handle_, 0));
        CU_CHECK(cuMemAddressReserve(&reader_, bytes_, 0, 0, 0));
        CU_CHECK(cuMemMap(reader_, bytes_, 0, handle_, 0));
        CUmemAccessDesc a = {};
        a.location = p.location;
        a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(writer_, bytes_, &a, 1));
        CU_CHECK(cuMemSetAccess(reader_, bytes_, &a, 1));
    }
    ~BookMemory() {
        cuMemUnmap(reader_, bytes_);
        cuMemUnmap(writer_, bytes_);
        cuMemRelease(handle_);
        cuMemAddressFree(reader_, bytes_);
        cuMemAddressFree(writer_, bytes_);
    }
    Level* writer() const { return reinterpret_cast<Level*>(writer_); }
    const Level* reader() const { return reinterpret_cast<const Level*>(reader_); }

private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr writer_ = 0, reader_ = 0;
    size_t bytes_ = 0;
};

int main() {
    RT_CHECK(cudaSetDevice(0));
    std::vector<cudaStream_t> lanes(2);
    for (auto& s : lanes) RT_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaStream_t ingest = lanes[0], publish = lanes[1];
    const int n = 4096;
    int* d_idx = nullptr;
    int64_t* d_qty = nullptr;
    Level* d_snap = nullptr;
    RT_CHECK(cudaMalloc(&d_idx, n * sizeof(int)));
    RT_CHECK(cudaMalloc(&d_qty, n * sizeof(int64_t)));
    RT_CHECK(cudaMalloc(&d_snap, kLevels * sizeof(Level)));
    RT_CHECK(cudaMemsetAsync(d_idx, 0, n * sizeof(int), ingest));
    RT_CHECK(cudaMemsetAsync(d_qty, 0, n * sizeof(int64_t), ingest));
    Level top{};
    {
        BookMemory book;
        apply_updates<<<n / 256, 256, 0, ingest>>>(book.writer(), d_idx, d_qty, n);
        snapshot<<<kLevels / 256, 256, 0, publish>>>(book.reader(), d_snap, kLevels); // EXPECT: unfenced_vmm_alias
        RT_CHECK(cudaMemcpyAsync(&top, d_snap, sizeof(top), cudaMemcpyDeviceToHost, publish));
        RT_CHECK(cudaStreamSynchronize(publish));
        RT_CHECK(cudaStreamSynchronize(ingest));
    }
    std::printf("top level qty %lld\n", (long long)top.qty);
    RT_CHECK(cudaFree(d_snap));
    RT_CHECK(cudaFree(d_qty));
    RT_CHECK(cudaFree(d_idx));
    for (auto& s : lanes) RT_CHECK(cudaStreamDestroy(s));
    return 0;
}

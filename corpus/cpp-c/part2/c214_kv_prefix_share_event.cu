// case: a paged KV cache maps one physical block at an owner view and a shared-prefix view; the prefill kernel writes through the owner view on one stream and the fork kernel reads through the shared view on another stream only after cudaStreamWaitEvent on the prefill's event
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { std::fprintf(stderr, "driver error %d at %s\n", (int)r_, #x); std::abort(); } } while (0)
#define RT_CHECK(x) do { cudaError_t r_ = (x); if (r_ != cudaSuccess) { std::fprintf(stderr, "%s at %s\n", cudaGetErrorString(r_), #x); std::abort(); } } while (0)

class SharedPrefixBlock {
public:
    explicit SharedPrefixBlock(size_t want) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        bytes_ = (want + gran - 1) / gran * gran;
        CU_CHECK(cuMemCreate(&handle_, bytes_, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&owner_, bytes_, 0, 0, 0));
        CU_CHECK(cuMemAddressReserve(&shared_, bytes_, 0, 0, 0));
        CU_CHECK(cuMemMap(owner_, bytes_, 0, handle_, 0));
        CU_CHECK(cuMemMap(shared_, bytes_, 0, handle_, 0));
        CUmemAccessDesc rw = {};
        rw.location = prop.location;
        rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(owner_, bytes_, &rw, 1));
        CU_CHECK(cuMemSetAccess(shared_, bytes_, &rw, 1));
    }
    ~SharedPrefixBlock() {
        cuMemUnmap(shared_, bytes_);
        cuMemUnmap(owner_, bytes_);
        cuMemRelease(handle_);
        cuMemAddressFree(shared_, bytes_);
        cuMemAddressFree(owner_, bytes_);
    }
    float* owner() const { return reinterpret_cast<float*>(owner_); }
    const float* shared() const { return reinterpret_cast<const float*>(shared_); }
    size_t floats() const { return bytes_ / sizeof(float); }

private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr owner_ = 0, shared_ = 0;
    size_t bytes_ = 0;
};

__global__ void prefill_prefix(float* kv, size_t n, float scale) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) kv[i] = scale * (float)(i % 1024);
}

// A forked request copies the shared prefix into its private pages and extends it.
__global__ void fork_from_prefix(const float* prefix, float* private_kv, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) private_kv[i] = prefix[i];
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev; CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx; CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev)); CU_CHECK(cuCtxSetCurrent(ctx));

    SharedPrefixBlock block(32u << 20);
    const size_t n = block.floats();
    float* d_private = nullptr;
    RT_CHECK(cudaMalloc(&d_private, n * sizeof(float)));

    cudaStream_t prefill_stream, fork_stream;
    cudaEvent_t prefix_done;
    RT_CHECK(cudaStreamCreateWithFlags(&prefill_stream, cudaStreamNonBlocking));
    RT_CHECK(cudaStreamCreateWithFlags(&fork_stream, cudaStreamNonBlocking));
    RT_CHECK(cudaEventCreateWithFlags(&prefix_done, cudaEventDisableTiming));

    const int threads = 256;
    const unsigned blocks = (unsigned)((n + threads - 1) / threads);
    prefill_prefix<<<blocks, threads, 0, prefill_stream>>>(block.owner(), n, 0.5f);
    RT_CHECK(cudaEventRecord(prefix_done, prefill_stream));

    RT_CHECK(cudaStreamWaitEvent(fork_stream, prefix_done, 0));
    fork_from_prefix<<<blocks, threads, 0, fork_stream>>>(block.shared(), d_private, n);

    float probe = 0.f;
    RT_CHECK(cudaMemcpyAsync(&probe, d_private + 1023, sizeof(float), cudaMemcpyDeviceToHost, fork_stream));
    RT_CHECK(cudaStreamSynchronize(fork_stream));
    std::printf("forked prefix, kv[1023] = %.1f\n", probe);

    RT_CHECK(cudaEventDestroy(prefix_done));
    RT_CHECK(cudaStreamDestroy(fork_stream));
    RT_CHECK(cudaStreamDestroy(prefill_stream));
    RT_CHECK(cudaFree(d_private));
    return 0;
}

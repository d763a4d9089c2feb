// case: an LLM server maps one KV-cache page block at a compute view and a swap view; the append kernel writes through the compute view on the decode stream while the swap-out copy reads through the swap view on the copy stream, with no event between the streams
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>

#define CU(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { std::fprintf(stderr, "%s = %d\n", #x, (int)r); std::exit(1); } } while (0)
#define RT(x) do { cudaError_t r = (x); if (r != cudaSuccess) { std::fprintf(stderr, "%s = %s\n", #x, cudaGetErrorString(r)); std::exit(1); } } while (0)

struct PageBlock {
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr compute_view = 0;   // used by attention / append kernels
    CUdeviceptr swap_view = 0;      // used by the host-swap engine
    size_t bytes = 0;
};

static void map_rw(CUdeviceptr va, size_t bytes, CUmemGenericAllocationHandle h, const CUmemLocation& loc) {
    CU(cuMemMap(va, bytes, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = loc;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(va, bytes, &acc, 1));
}

static PageBlock create_page_block(int device, size_t want) {
    PageBlock pb;
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    pb.bytes = (want + gran - 1) / gran * gran;
    CU(cuMemCreate(&pb.handle, pb.bytes, &prop, 0));
    CU(cuMemAddressReserve(&pb.compute_view, pb.bytes, 0, 0, 0));
    CU(cuMemAddressReserve(&pb.swap_view, pb.bytes, 0, 0, 0));
    map_rw(pb.compute_view, pb.bytes, pb.handle, prop.location);
    map_rw(pb.swap_view, pb.bytes, pb.handle, prop.location);
    return pb;
}

static void destroy_page_block(PageBlock& pb) {
    CU(cuMemUnmap(pb.swap_view, pb.bytes));
    CU(cuMemUnmap(pb.compute_view, pb.bytes));
    CU(cuMemRelease(pb.handle));
    CU(cuMemAddressFree(pb.swap_view, pb.bytes));
    CU(cuMemAddressFree(pb.compute_view, pb.bytes));
}

// Appends the key/value vectors of the newest token of every sequence.
__global__ void append_kv(__half* pages, const __half* new_kv, int n_seq, int token, int head_dim, int max_tokens) {
    int seq = blockIdx.x, d = threadIdx.x;
    if (seq < n_seq && d < head_dim)
        pages[((size_t)seq * max_tokens + token) * head_dim + d] = new_kv[(size_t)seq * head_dim + d];
}

int main() {
    CU(cuInit(0));
    CUdevice dev; CU(cuDeviceGet(&dev, 0));
    CUcontext ctx; CU(cuDevicePrimaryCtxRetain(&ctx, dev)); CU(cuCtxSetCurrent(ctx));

    const int n_seq = 64, head_dim = 128, max_tokens = 256;
    PageBlock pb = create_page_block(0, (size_t)n_seq * max_tokens * head_dim * sizeof(__half));

    __half *d_new = nullptr, *h_swap = nullptr;
    RT(cudaMalloc(&d_new, (size_t)n_seq * head_dim * sizeof(__half)));
    RT(cudaMemset(d_new, 0, (size_t)n_seq * head_dim * sizeof(__half)));
    RT(cudaMallocHost(&h_swap, pb.bytes));
    RT(cudaDeviceSynchronize());

    cudaStream_t decode, copy;
    RT(cudaStreamCreateWithFlags(&decode, cudaStreamNonBlocking));
    RT(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));

    // last decode step before the scheduler preempts this batch
    append_kv<<<n_seq, head_dim, 0, decode>>>(reinterpret_cast<__half*>(pb.compute_view), d_new, n_seq, 17, head_dim, max_tokens);
    RT(cudaGetLastError());
    // preemption: swap the whole block out to host memory on the copy engine
    RT(cudaMemcpyAsync(h_swap, reinterpret_cast<void*>(pb.swap_view), pb.bytes, cudaMemcpyDeviceToHost, copy)); // EXPECT: unfenced_vmm_alias

    RT(cudaStreamSynchronize(copy));
    RT(cudaStreamSynchronize(decode));
    std::printf("swapped out %zu bytes, first half %f\n", pb.bytes, __half2float(h_swap[0]));

    RT(cudaStreamDestroy(copy));
    RT(cudaStreamDestroy(decode));
    destroy_page_block(pb);
    RT(cudaFreeHost(h_swap));
    RT(cudaFree(d_new));
    return 0;
}

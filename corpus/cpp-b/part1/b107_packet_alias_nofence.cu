// case: NIC packet buffer with two VMM views (ingest view and parse view) of one cuMemCreate allocation; one kernel writes headers through the ingest view and reads them through the parse view with no fence.proxy.alias
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

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

struct PacketHeader {
    uint32_t src_ip;
    uint32_t dst_ip;
    uint16_t src_port;
    uint16_t dst_port;
    uint32_t length;
};

__global__ void ingest_and_classify(PacketHeader* ingest_view, const PacketHeader* parse_view,
                                    uint32_t* flow_ids, int npackets) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npackets) return;
    PacketHeader h;
    h.src_ip = 0x0a000000u + i;
    h.dst_ip = 0x0a000001u;
    h.src_port = static_cast<uint16_t>(1024 + (i & 0x3ff));
    h.dst_port = 443;
    h.length = 64 + (i & 0x7f);
    ingest_view[i] = h;
    const PacketHeader& p = parse_view[i];
    flow_ids[i] = p.src_ip ^ (static_cast<uint32_t>(p.src_port) << 16) ^ p.dst_port;
}

class PacketRing {
public:
    explicit PacketRing(int device) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = ((64u << 20) + gran - 1) / gran * gran;
        CU_CHECK(cuMemCreate(&handle_, size_, &prop_, 0));
        CU_CHECK(cuMemAddressReserve(&ingest_va_, size_, 0, 0, 0));
        CU_CHECK(cuMemAddressReserve(&parse_va_, size_, 0, 0, 0));
        CU_CHECK(cuMemMap(ingest_va_, size_, 0, handle_, 0));
        CU_CHECK(cuMemMap(parse_va_, size_, 0, handle_, 0));
        CUmemAccessDesc access = {};
        access.location = prop_.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(ingest_va_, size_, &access, 1));
        CU_CHECK(cuMemSetAccess(parse_va_, size_, &access, 1));
    }

    ~PacketRing() {
        cuCtxSynchronize();
        cuMemUnmap(parse_va_, size_);
        cuMemUnmap(ingest_va_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(parse_va_, size_);
        cuMemAddressFree(ingest_va_, size_);
    }

    PacketHeader* ingest() const { return reinterpret_cast<PacketHeader*>(ingest_va_); }
    const PacketHeader* parse() const { return reinterpret_cast<const PacketHeader*>(parse_va_); }
    int capacity() const { return static_cast<int>(size_ / sizeof(PacketHeader)); }

private:
    CUmemAllocationProp prop_ = {};
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr ingest_va_ = 0;
    CUdeviceptr parse_va_ = 0;
    size_t size_ = 0;
};

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    PacketRing ring(0);
    int n = ring.capacity();
    uint32_t* d_flows = nullptr;
    cudaMalloc(&d_flows, n * sizeof(uint32_t));
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

    ingest_and_classify<<<(n + 255) / 256, 256, 0, stream>>>(ring.ingest(), ring.parse(), d_flows, n); // EXPECT: unfenced_vmm_alias
    cudaStreamSynchronize(stream);

    cudaFree(d_flows);
    cudaStreamDestroy(stream);
    return 0;
}

// case: an LZ77 compressor maps its sliding-window allocation twice (a writer view and a read-only matcher view) and runs the window builder on one stream and the match finder on another; nothing orders the matcher's reads through the second mapping after the builder's writes through the first.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void cu_check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) {
        const char* s = nullptr;
        cuGetErrorName(r, &s);
        std::fprintf(stderr, "%s: %s\n", what, s ? s : "unknown");
        std::exit(1);
    }
}

struct AliasedWindow {
    CUmemGenericAllocationHandle phys{};
    CUdeviceptr writer = 0;   // mapping used by the window builder
    CUdeviceptr reader = 0;   // mapping used by the match finder
    size_t bytes = 0;
};

static AliasedWindow make_window(size_t want, int device) {
    AliasedWindow w;
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    cu_check(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), "granularity");
    w.bytes = (want + gran - 1) / gran * gran;
    cu_check(cuMemCreate(&w.phys, w.bytes, &prop, 0), "create");
    cu_check(cuMemAddressReserve(&w.writer, w.bytes, 0, 0, 0), "reserve writer");
    cu_check(cuMemAddressReserve(&w.reader, w.bytes, 0, 0, 0), "reserve reader");
    cu_check(cuMemMap(w.writer, w.bytes, 0, w.phys, 0), "map writer");
    cu_check(cuMemMap(w.reader, w.bytes, 0, w.phys, 0), "map reader");
    CUmemAccessDesc rw{};
    rw.location = prop.location;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    cu_check(cuMemSetAccess(w.writer, w.bytes, &rw, 1), "access writer");
    cu_check(cuMemSetAccess(w.reader, w.bytes, &rw, 1), "access reader");
    return w;
}

static void destroy_window(AliasedWindow& w) {
    cu_check(cuMemUnmap(w.writer, w.bytes), "unmap writer");
    cu_check(cuMemUnmap(w.reader, w.bytes), "unmap reader");
    cu_check(cuMemRelease(w.phys), "release");
    cu_check(cuMemAddressFree(w.writer, w.bytes), "free writer");
    cu_check(cuMemAddressFree(w.reader, w.bytes), "free reader");
}

__global__ void build_window(uint8_t* window, const uint8_t* input, size_t n) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) window[i] = input[i];
}

__global__ void find_matches(const uint8_t* window, size_t n, uint32_t* match_len) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n || i < 4096) return;
    uint32_t best = 0;
    for (size_t back = 1; back <= 64; ++back) {
        uint32_t len = 0;
        while (len < 32 && i + len < n && window[i + len] == window[i - back + len]) ++len;
        best = len > best ? len : best;
    }
    match_len[i] = best;
}

int main() {
    cudaSetDevice(0);
    cudaFree(nullptr);  // make the primary context current for the driver calls
    cu_check(cuInit(0), "init");

    constexpr size_t kBlock = size_t(4) << 20;
    AliasedWindow win = make_window(kBlock, 0);

    uint8_t* d_input = nullptr;
    uint32_t* d_match = nullptr;
    cudaMalloc(&d_input, kBlock);
    cudaMalloc(&d_match, kBlock * sizeof(uint32_t));
    cudaMemset(d_match, 0, kBlock * sizeof(uint32_t));

    std::vector<uint8_t> text(kBlock);
    for (size_t i = 0; i < kBlock; ++i) text[i] = "abracadabra "[i % 12];
    cudaMemcpy(d_input, text.data(), kBlock, cudaMemcpyHostToDevice);

    cudaStream_t s_build, s_match;
    cudaStreamCreateWithFlags(&s_build, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s_match, cudaStreamNonBlocking);
    cudaDeviceSynchronize();

    const unsigned grid = static_cast<unsigned>((kBlock + 255) / 256);
    build_window<<<grid, 256, 0, s_build>>>(reinterpret_cast<uint8_t*>(win.writer), d_input, kBlock);
    find_matches<<<grid, 256, 0, s_match>>>(reinterpret_cast<const uint8_t*>(win.reader), kBlock, d_match);  // EXPECT: unfenced_vmm_alias

    cudaDeviceSynchronize();
    std::vector<uint32_t> lens(kBlock);
    cudaMemcpy(lens.data(), d_match, kBlock * sizeof(uint32_t), cudaMemcpyDeviceToHost);
    uint64_t covered = 0;
    for (uint32_t l : lens) covered += l >= 4 ? 1 : 0;
    std::printf("positions with a match of 4+ bytes: %llu\n", static_cast<unsigned long long>(covered));

    destroy_window(win);
    cudaFree(d_match);
    cudaFree(d_input);
    cudaStreamDestroy(s_build);
    cudaStreamDestroy(s_match);
    return 0;
}

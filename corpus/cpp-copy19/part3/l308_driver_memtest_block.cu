// case: a driver-API memory tester allocates a test block with cuMemAlloc for each pattern, verifies it and returns the mismatch count without cuMemFree
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>

#define DRV_CHECK(call)                                                    \
    do {                                                                   \
        CUresult r_ = (call);                                              \
        if (r_ != CUDA_SUCCESS) {                                          \
            const char* msg = nullptr;                                     \
            cuGetErrorString(r_, &msg);                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, msg);       \
            exit(2);                                                       \
        }                                                                  \
    } while (0)

static const size_t kWords = 16 * 1024 * 1024;  // 64 MiB per block
static const unsigned kPatterns[] = {0x00000000u, 0xFFFFFFFFu, 0xAAAAAAAAu,
                                     0x55555555u, 0xDEADBEEFu};

static size_t test_pattern(unsigned pattern, std::vector<unsigned>& readback) {
    CUdeviceptr block = 0;
    DRV_CHECK(cuMemAlloc(&block, kWords * sizeof(unsigned))); // EXPECT: device_memory_leak
    DRV_CHECK(cuMemsetD32(block, pattern, kWords));
    DRV_CHECK(cuCtxSynchronize());
    DRV_CHECK(cuMemcpyDtoH(readback.data(), block, kWords * sizeof(unsigned)));

    size_t bad = 0;
    for (size_t i = 0; i < kWords; ++i)
        if (readback[i] != pattern) ++bad;
    return bad;
}

int main(int argc, char** argv) {
    int ordinal = argc > 1 ? atoi(argv[1]) : 0;
    DRV_CHECK(cuInit(0));
    CUdevice dev;
    DRV_CHECK(cuDeviceGet(&dev, ordinal));
    char name[128];
    DRV_CHECK(cuDeviceGetName(name, sizeof(name), dev));

    CUcontext ctx;
    DRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV_CHECK(cuCtxSetCurrent(ctx));

    std::vector<unsigned> readback(kWords);
    size_t total_bad = 0;
    for (int pass = 0; pass < 4; ++pass) {
        for (unsigned p : kPatterns) {
            size_t bad = test_pattern(p, readback);
            if (bad) printf("pass %d pattern %08x: %zu bad words\n", pass, p, bad);
            total_bad += bad;
        }
    }
    printf("%s: %zu errors\n", name, total_bad);

    DRV_CHECK(cuDevicePrimaryCtxRelease(dev));
    return total_bad ? 1 : 0;
}

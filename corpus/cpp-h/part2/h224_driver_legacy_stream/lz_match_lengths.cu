// case: LZ77 match-length finder allocates with the driver API, uploads the window from a pinned cuMemAllocHost buffer with cuMemcpyHtoDAsync on the null stream, runs its kernel on the null stream and reads results with blocking cuMemcpyDtoH into a std::vector, which waits for that legacy-stream work; pinned memory goes back through cuMemFreeHost.
// expect: none
#include "cu_helpers.h"
#include <cuda_runtime.h>
#include <cstdint>
#include <cstring>
#include <vector>

__global__ void match_lengths(const uint8_t* buf, int n, int window, uint16_t* best_len) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int best = 0;
    int lo = i - window < 0 ? 0 : i - window;
    for (int j = lo; j < i; ++j) {
        int l = 0;
        while (i + l < n && l < 258 && buf[j + l] == buf[i + l]) ++l;
        if (l > best) best = l;
    }
    best_len[i] = uint16_t(best);
}

int main() {
    DriverContext drv;
    const int n = 1 << 20, window = 256;
    const size_t in_bytes = n, out_bytes = n * sizeof(uint16_t);

    void* h_in = nullptr;
    CU_CHECK(cuMemAllocHost(&h_in, in_bytes));
    uint8_t* text = static_cast<uint8_t*>(h_in);
    for (int i = 0; i < n; ++i) text[i] = uint8_t("abracadabra"[i % 11] + (i / 4096) % 3);

    CUdeviceptr d_in = 0, d_len = 0;
    CU_CHECK(cuMemAlloc(&d_in, in_bytes));
    CU_CHECK(cuMemAlloc(&d_len, out_bytes));
    CU_CHECK(cuMemcpyHtoDAsync(d_in, h_in, in_bytes, 0));

    match_lengths<<<(n + 255) / 256, 256>>>(reinterpret_cast<const uint8_t*>(d_in), n, window,
                                             reinterpret_cast<uint16_t*>(d_len));
    std::vector<uint16_t> lengths(n);
    CU_CHECK(cuMemcpyDtoH(lengths.data(), d_len, out_bytes));

    long long covered = 0;
    for (int i = 0; i < n; ++i) covered += lengths[i] >= 3;
    printf("%lld of %d positions start a match of length >= 3\n", covered, n);

    std::memset(h_in, 0, in_bytes);
    CU_CHECK(cuMemFree(d_len));
    CU_CHECK(cuMemFree(d_in));
    CU_CHECK(cuMemFreeHost(h_in));
    return 0;
}

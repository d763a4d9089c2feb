// case: a small transfer library whose functions receive their pointers from callers the file does not show; parameter names look swapped (src first) but nothing about where the memory lives is visible.
// expect: none
#include <cstddef>
#include <cstdio>
#include <cuda_runtime.h>

namespace xfer {

inline bool ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "xfer::%s: %s\n", what, cudaGetErrorString(e));
        return false;
    }
    return true;
}

// Copies `count` floats from `src` to `dst`; argument order mirrors memcpy_s(dst, src).
bool fetch(float* hostDst, const float* devSrc, size_t count) {
    return ok(cudaMemcpy(hostDst, devSrc, count * sizeof(float), cudaMemcpyDeviceToHost), "fetch");
}

bool push(float* devDst, const float* hostSrc, size_t count) {
    return ok(cudaMemcpy(devDst, hostSrc, count * sizeof(float), cudaMemcpyHostToDevice), "push");
}

// Legacy API: (from, to) order kept for binary compatibility.
bool legacy_store(const float* from, float* to, size_t count, cudaStream_t s) {
    return ok(cudaMemcpyAsync(to, from, count * sizeof(float), cudaMemcpyDeviceToHost, s),
              "legacy_store");
}

bool rows(float* dst, size_t dpitch, const float* src, size_t spitch,
          size_t widthFloats, size_t height) {
    return ok(cudaMemcpy2D(dst, dpitch, src, spitch, widthFloats * sizeof(float), height,
                           cudaMemcpyDeviceToDevice), "rows");
}

}  // namespace xfer

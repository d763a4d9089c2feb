// case: A driver-API program loads a vector-add kernel from a cubin and checks every CUresult, its cleanup and its own cuGetErrorString call included.
// expect: none
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void cu_check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* msg = nullptr;
    if (cuGetErrorString(r, &msg) != CUDA_SUCCESS || msg == nullptr) msg = "unrecognised error";
    fprintf(stderr, "%s: %s\n", what, msg);
    exit(1);
}

struct DriverSession {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    CUmodule mod = nullptr;
    CUfunction vadd = nullptr;
};

static void open_session(DriverSession& s, const char* cubin) {
    cu_check(cuInit(0), "cuInit");
    cu_check(cuDeviceGet(&s.dev, 0), "cuDeviceGet");
    cu_check(cuDevicePrimaryCtxRetain(&s.ctx, s.dev), "cuDevicePrimaryCtxRetain");
    cu_check(cuCtxSetCurrent(s.ctx), "cuCtxSetCurrent");
    cu_check(cuModuleLoad(&s.mod, cubin), "cuModuleLoad");
    cu_check(cuModuleGetFunction(&s.vadd, s.mod, "vector_add"), "cuModuleGetFunction");
}

static void close_session(DriverSession& s) {
    cu_check(cuModuleUnload(s.mod), "cuModuleUnload");
    cu_check(cuDevicePrimaryCtxRelease(s.dev), "cuDevicePrimaryCtxRelease");
}

int main() {
    DriverSession s;
    open_session(s, "vector_add.cubin");

    int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 0.0f);

    CUdeviceptr da, db, dc;
    cu_check(cuMemAlloc(&da, bytes), "cuMemAlloc(a)");
    cu_check(cuMemAlloc(&db, bytes), "cuMemAlloc(b)");
    cu_check(cuMemAlloc(&dc, bytes), "cuMemAlloc(c)");
    cu_check(cuMemcpyHtoD(da, a.data(), bytes), "upload a");
    cu_check(cuMemcpyHtoD(db, b.data(), bytes), "upload b");

    void* params[] = {&da, &db, &dc, &n};
    cu_check(cuLaunchKernel(s.vadd, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr),
             "cuLaunchKernel");
    cu_check(cuCtxSynchronize(), "cuCtxSynchronize");
    cu_check(cuMemcpyDtoH(c.data(), dc, bytes), "download c");

    double sum = 0.0;
    for (float v : c) sum += v;
    printf("sum(c) = %.0f (expected %d)\n", sum, 3 * n);

    cu_check(cuMemFree(dc), "cuMemFree(c)");
    cu_check(cuMemFree(db), "cuMemFree(b)");
    cu_check(cuMemFree(da), "cuMemFree(a)");
    close_session(s);
    return 0;
}

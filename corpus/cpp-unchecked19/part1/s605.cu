// case: A driver-API program loads saxpy from a PTX module and checks the launch, but drops cuCtxSynchronize's status and those of cuMemFree and cuModuleUnload in its cleanup.
// expect: unchecked_cuda_result=3
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                         \
    do {                                                                       \
        CUresult r_ = (call);                                                  \
        if (r_ != CUDA_SUCCESS) {                                              \
            const char* msg_ = "unknown error";                                \
            if (cuGetErrorString(r_, &msg_) != CUDA_SUCCESS) msg_ = "?";       \
            fprintf(stderr, "%s failed: %s\n", #call, msg_);                   \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

int main(int argc, char** argv) {
    const char* ptx_path = argc > 1 ? argv[1] : "saxpy.ptx";
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    float a = 2.0f;

    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmodule mod;
    CU_CHECK(cuModuleLoad(&mod, ptx_path));
    CUfunction saxpy;
    CU_CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));

    std::vector<float> hx(n, 1.0f), hy(n, 3.0f);
    CUdeviceptr dx, dy;
    CU_CHECK(cuMemAlloc(&dx, bytes));
    CU_CHECK(cuMemAlloc(&dy, bytes));
    CU_CHECK(cuMemcpyHtoD(dx, hx.data(), bytes));
    CU_CHECK(cuMemcpyHtoD(dy, hy.data(), bytes));

    int count = n;
    void* args[] = {&a, &dx, &dy, &count};
    const unsigned threads = 256;
    const unsigned blocks = (n + threads - 1) / threads;
    CU_CHECK(cuLaunchKernel(saxpy, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr));
    cuCtxSynchronize();  // EXPECT: unchecked_cuda_result

    CU_CHECK(cuMemcpyDtoH(hy.data(), dy, bytes));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        if (hy[i] != 5.0f) ++wrong;
    printf("saxpy: %d wrong values\n", wrong);

    CU_CHECK(cuMemFree(dx));
    cuMemFree(dy);         // EXPECT: unchecked_cuda_result
    cuModuleUnload(mod);   // EXPECT: unchecked_cuda_result
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return wrong == 0 ? 0 : 1;
}

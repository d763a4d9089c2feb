// case: driver-API PTX loader runs a saxpy module; after the launch it prints the first result by casting the CUdeviceptr to float* on the host, and its cleanup frees the cuMemAlloc'd result with cuMemFreeHost.
// expect: host_deref_device_ptr=1, mismatched_free=1
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define DRV(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    const char* msg = nullptr; cuGetErrorString(r_, &msg); \
    std::fprintf(stderr, "%s -> %s\n", #call, msg ? msg : "?"); std::exit(1); } } while (0)

static const char* kSaxpyPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u32 n)
{
    .reg .pred p; .reg .b32 r<5>; .reg .f32 f<4>; .reg .b64 rd<8>;
    ld.param.f32 f1, [a]; ld.param.u64 rd1, [x]; ld.param.u64 rd2, [y]; ld.param.u32 r1, [n];
    mov.u32 r2, %ctaid.x; mov.u32 r3, %ntid.x; mov.u32 r4, %tid.x; mad.lo.s32 r2, r2, r3, r4;
    setp.ge.u32 p, r2, r1; @p bra DONE;
    cvta.to.global.u64 rd3, rd1; cvta.to.global.u64 rd4, rd2; mul.wide.u32 rd5, r2, 4;
    add.s64 rd6, rd3, rd5; add.s64 rd7, rd4, rd5;
    ld.global.f32 f2, [rd6]; ld.global.f32 f3, [rd7]; fma.rn.f32 f3, f1, f2, f3; st.global.f32 [rd7], f3;
DONE:
    ret;
}
)";

int main(int argc, char** argv)
{
    unsigned n = argc > 1 ? (unsigned)std::atoi(argv[1]) : (1u << 22);
    size_t bytes = n * sizeof(float);

    DRV(cuInit(0));
    CUdevice dev;
    DRV(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));
    CUmodule mod;
    DRV(cuModuleLoadData(&mod, kSaxpyPtx));
    CUfunction saxpy;
    DRV(cuModuleGetFunction(&saxpy, mod, "saxpy"));

    std::vector<float> hx(n), hy(n);
    for (unsigned i = 0; i < n; ++i) { hx[i] = (float)i; hy[i] = 1.0f; }

    CUdeviceptr dx, dy;
    DRV(cuMemAlloc(&dx, bytes));
    DRV(cuMemAlloc(&dy, bytes));
    DRV(cuMemcpyHtoD(dx, hx.data(), bytes));
    DRV(cuMemcpyHtoD(dy, hy.data(), bytes));

    float a = 2.5f;
    void* args[] = {&a, &dx, &dy, &n};
    DRV(cuLaunchKernel(saxpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    DRV(cuCtxSynchronize());

    float* y_view = reinterpret_cast<float*>(dy);
    std::printf("y[0] = %f (expected %f)\n", y_view[0], a * hx[0] + 1.0f);   // EXPECT: host_deref_device_ptr

    DRV(cuMemcpyDtoH(hy.data(), dy, bytes));
    double sum = 0.0;
    for (float v : hy) sum += v;
    std::printf("sum(y) = %.1f\n", sum);

    DRV(cuMemFree(dx));
    cuMemFreeHost(reinterpret_cast<void*>(dy));                              // EXPECT: mismatched_free
    DRV(cuModuleUnload(mod));
    DRV(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

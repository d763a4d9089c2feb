// case: A driver-API 1D heat solver clears its cuMemAlloc'd field with cuMemsetD32 given the byte size instead of the 32-bit element count (4x past the allocation: copy_out_of_bounds), and after cuCtxSynchronize prints the midpoint by casting the CUdeviceptr to float* and indexing it on the host (host_deref_device_ptr).
// expect: copy_out_of_bounds=1, host_deref_device_ptr=1
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define DRV_CHECK(call)                                                            \
    do {                                                                           \
        CUresult r_ = (call);                                                      \
        if (r_ != CUDA_SUCCESS) {                                                  \
            const char* msg_ = nullptr;                                            \
            cuGetErrorString(r_, &msg_);                                           \
            std::fprintf(stderr, "%s failed: %s\n", #call, msg_ ? msg_ : "?");     \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr size_t kCells = size_t(1) << 20;
constexpr size_t kFieldBytes = kCells * sizeof(float);
constexpr unsigned kBlock = 256;

int main(int argc, char** argv) {
    const char* ptx_path = argc > 1 ? argv[1] : "heat1d.ptx";
    const int steps = 1000;

    DRV_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV_CHECK(cuDeviceGet(&dev, 0));
    DRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV_CHECK(cuCtxSetCurrent(ctx));

    CUmodule mod;
    CUfunction step_fn;
    DRV_CHECK(cuModuleLoad(&mod, ptx_path));
    DRV_CHECK(cuModuleGetFunction(&step_fn, mod, "heat_step"));

    CUdeviceptr d_u = 0, d_u_next = 0;
    DRV_CHECK(cuMemAlloc(&d_u, kFieldBytes));
    DRV_CHECK(cuMemAlloc(&d_u_next, kFieldBytes));
    DRV_CHECK(cuMemsetD32(d_u, 0, kFieldBytes));  // EXPECT: copy_out_of_bounds
    DRV_CHECK(cuMemsetD32(d_u_next, 0, kCells));

    // Initial condition: a hot segment in the middle.
    std::vector<float> hot(kCells / 16, 1.0f);
    DRV_CHECK(cuMemcpyHtoD(d_u + (kCells / 2 - hot.size() / 2) * sizeof(float), hot.data(),
                           hot.size() * sizeof(float)));

    unsigned n = unsigned(kCells);
    float r = 0.25f;
    for (int s = 0; s < steps; ++s) {
        void* args[] = {&d_u, &d_u_next, &n, &r};
        DRV_CHECK(cuLaunchKernel(step_fn, unsigned((kCells + kBlock - 1) / kBlock), 1, 1, kBlock, 1, 1,
                                 0, nullptr, args, nullptr));
        CUdeviceptr tmp = d_u;
        d_u = d_u_next;
        d_u_next = tmp;
    }
    DRV_CHECK(cuCtxSynchronize());

    const float* field = reinterpret_cast<const float*>(d_u);
    std::printf("u(mid) after %d steps = %f\n", steps, field[kCells / 2]);  // EXPECT: host_deref_device_ptr

    std::vector<float> host(kCells);
    DRV_CHECK(cuMemcpyDtoH(host.data(), d_u, kFieldBytes));
    double total = 0.0;
    for (float v : host) total += v;
    std::printf("total heat %.4f\n", total);

    DRV_CHECK(cuMemFree(d_u));
    DRV_CHECK(cuMemFree(d_u_next));
    DRV_CHECK(cuModuleUnload(mod));
    DRV_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

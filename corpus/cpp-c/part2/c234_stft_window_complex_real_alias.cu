// case: an STFT front end maps one frame buffer twice (a float2 complex view and a float real view); the window kernel writes each windowed pair through the complex view and then reads it back through the real view for the frame energy, with no fence.proxy.alias
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { std::fprintf(stderr, "stft: %s failed (%d)\n", #x, (int)r_); std::abort(); } } while (0)

constexpr int kFrame = 1024;   // real samples per frame = 512 complex pairs

struct AliasedFrames {
    CUmemGenericAllocationHandle mem = 0;
    CUdeviceptr cplx = 0, real = 0;
    size_t bytes = 0;
};

static AliasedFrames map_frames(size_t want) {
    AliasedFrames a;
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g = 0;
    CHK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    a.bytes = (want + g - 1) / g * g;
    CHK(cuMemCreate(&a.mem, a.bytes, &prop, 0));
    CHK(cuMemAddressReserve(&a.cplx, a.bytes, 0, 0, 0));
    CHK(cuMemAddressReserve(&a.real, a.bytes, 0, 0, 0));
    CHK(cuMemMap(a.cplx, a.bytes, 0, a.mem, 0));
    CHK(cuMemMap(a.real, a.bytes, 0, a.mem, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHK(cuMemSetAccess(a.cplx, a.bytes, &acc, 1));
    CHK(cuMemSetAccess(a.real, a.bytes, &acc, 1));
    return a;
}

static void unmap_frames(AliasedFrames& a) {
    CHK(cuMemUnmap(a.real, a.bytes));
    CHK(cuMemUnmap(a.cplx, a.bytes));
    CHK(cuMemRelease(a.mem));
    CHK(cuMemAddressFree(a.real, a.bytes));
    CHK(cuMemAddressFree(a.cplx, a.bytes));
}

// Applies a Hann window in place (as complex pairs, ready for the C2C FFT of the
// packed real signal), then sums the windowed energy of the frame.
__global__ void hann_window_energy(float2* cplx, const float* real, float* frame_energy, int n_frames) {
    int f = blockIdx.x;
    int j = threadIdx.x;                         // pair index within the frame
    if (f >= n_frames) return;
    size_t pair = (size_t)f * (kFrame / 2) + j;
    float w0 = 0.5f - 0.5f * cospif(2.f * (2 * j) / (kFrame - 1));
    float w1 = 0.5f - 0.5f * cospif(2.f * (2 * j + 1) / (kFrame - 1));
    float2 z = cplx[pair];
    cplx[pair] = make_float2(z.x * w0, z.y * w1);
    float a = real[2 * pair], b = real[2 * pair + 1];
    atomicAdd(&frame_energy[f], a * a + b * b);
}

__global__ void synth(float* real, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) real[i] = sinf(0.01f * i) + 0.3f * sinf(0.11f * i);
}

int main() {
    CHK(cuInit(0));
    CUdevice dev; CHK(cuDeviceGet(&dev, 0));
    CUcontext ctx; CHK(cuDevicePrimaryCtxRetain(&ctx, dev)); CHK(cuCtxSetCurrent(ctx));

    const int n_frames = 4096;
    AliasedFrames frames = map_frames((size_t)n_frames * kFrame * sizeof(float));
    float* d_energy = nullptr;
    float* h_energy = nullptr;
    cudaMalloc(&d_energy, n_frames * sizeof(float));
    cudaMallocHost(&h_energy, n_frames * sizeof(float));

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const size_t n_real = (size_t)n_frames * kFrame;
    synth<<<(unsigned)((n_real + 255) / 256), 256, 0, s>>>(reinterpret_cast<float*>(frames.real), n_real);
    cudaMemsetAsync(d_energy, 0, n_frames * sizeof(float), s);
    hann_window_energy<<<n_frames, kFrame / 2, 0, s>>>(reinterpret_cast<float2*>(frames.cplx), reinterpret_cast<const float*>(frames.real), d_energy, n_frames); // EXPECT: unfenced_vmm_alias
    cudaMemcpyAsync(h_energy, d_energy, n_frames * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);

    double total = 0.0;
    for (int f = 0; f < n_frames; ++f) total += h_energy[f];
    std::printf("mean windowed frame energy %.4f\n", total / n_frames);

    cudaStreamDestroy(s);
    unmap_frames(frames);
    cudaFreeHost(h_energy);
    cudaFree(d_energy);
    return 0;
}

// case: A streaming FIR filter appends new samples into a mirrored VMM ring through the primary mapping and, in the same kernel, reads its tap window through the mirror mapping (base + size) with only __syncthreads, no fence.proxy.alias.
// expect: unfenced_vmm_alias=1
#include "mirrored_ring.h"
#include <cuda_runtime.h>
#include <vector>

constexpr int kTaps = 32;
constexpr int kBlock = 256;

__global__ void append_and_filter(float* ring, const float* window_base, const float* in,
                                  float* out, int cap, int head, const float* taps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int slot = (head + i) % cap;
    ring[slot] = in[i];
    __syncthreads();
    // the window ending at slot, read through the mirror view so it never wraps
    const float* w = window_base + slot - (kTaps - 1);
    float acc = 0.f;
    for (int t = 0; t < kTaps; ++t) acc += taps[t] * w[t];
    out[i] = acc;
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    MirroredRing ring(0);
    const int cap = ring.capacity();
    const int chunk = kBlock * 16;

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    float *d_in, *d_out, *d_taps, *h_out;
    cudaMalloc(&d_in, chunk * sizeof(float));
    cudaMalloc(&d_out, chunk * sizeof(float));
    cudaMalloc(&d_taps, kTaps * sizeof(float));
    cudaMallocHost(&h_out, chunk * sizeof(float));
    std::vector<float> taps(kTaps, 1.0f / kTaps);
    cudaMemcpy(d_taps, taps.data(), kTaps * sizeof(float), cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
    cudaMemsetAsync(ring.primary(), 0, ring.size, s);
    cudaMemsetAsync(d_in, 0, chunk * sizeof(float), s);

    int head = 0;
    for (int block = 0; block < 8; ++block) {
        append_and_filter<<<chunk / kBlock, kBlock, 0, s>>>(ring.primary(), ring.mirror(), d_in, d_out, cap, head, d_taps); // EXPECT: unfenced_vmm_alias
        cudaMemcpyAsync(h_out, d_out, chunk * sizeof(float), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
        std::printf("block %d: y[0] = %f\n", block, h_out[0]);
        head = (head + chunk) % cap;
    }

    cudaFreeHost(h_out);
    cudaFree(d_taps);
    cudaFree(d_out);
    cudaFree(d_in);
    cudaStreamDestroy(s);
    return 0;
}

// case: A streaming FIR filter keeps its sample history in a VMM mirrored ring (one allocation mapped at base and base+size) and one kernel writes new samples through the lower view then reads the filter window through the upper view, with no fence.proxy.alias between.
// expect: unfenced_vmm_alias=1
#include "mirror_ring.cuh"
#include <cuda_runtime.h>
#include <vector>

constexpr int kTaps = 64;
__constant__ float c_taps[kTaps];

// Each block appends its slice of the new batch, then every thread filters one output sample.
// The window for output i spans [head + i - kTaps + 1, head + i], read through the upper view so
// that it never has to wrap.
__global__ void fir_append_and_filter(float* ring_lower, const float* ring_upper, size_t cap,
                                      const float* __restrict__ batch, int batch_len,
                                      size_t head, float* __restrict__ out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= batch_len) return;
    ring_lower[(head + i) % cap] = batch[i];
    __syncthreads();
    size_t pos = (head + i) % cap;
    const float* window = ring_upper + pos - (kTaps - 1);   // contiguous even across the wrap
    float acc = 0.f;
    for (int t = 0; t < kTaps; ++t) acc += c_taps[kTaps - 1 - t] * window[t];
    out[i] = acc;
}

int main() {
    DRV_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV_CHECK(cuDeviceGet(&dev, 0));
    DRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV_CHECK(cuCtxSetCurrent(ctx));

    std::vector<float> taps(kTaps);
    for (int t = 0; t < kTaps; ++t) taps[t] = 1.f / kTaps;
    cudaMemcpyToSymbol(c_taps, taps.data(), sizeof(float) * kTaps);
    cudaDeviceSynchronize();

    const int batch_len = 1024;
    float *d_batch, *d_out, *h_batch, *h_out;
    cudaMalloc(&d_batch, batch_len * sizeof(float));
    cudaMallocHost(&h_batch, batch_len * sizeof(float));
    cudaMalloc(&d_out, batch_len * sizeof(float));
    cudaMallocHost(&h_out, batch_len * sizeof(float));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);

    double energy = 0.0;
    {
        MirrorRing ring(1 << 21);
        cudaMemsetAsync(ring.lower(), 0, ring.capacity() * sizeof(float), s);
        size_t head = 0;
        for (int iter = 0; iter < 200; ++iter) {
            for (int i = 0; i < batch_len; ++i) h_batch[i] = float((iter + i) % 7) - 3.f;
            cudaMemcpyAsync(d_batch, h_batch, batch_len * sizeof(float), cudaMemcpyHostToDevice, s);
            fir_append_and_filter<<<batch_len / 256, 256, 0, s>>>(ring.lower(), ring.upper(),
                                                                  ring.capacity(), d_batch,
                                                                  batch_len, head, d_out);
            cudaMemcpyAsync(h_out, d_out, batch_len * sizeof(float), cudaMemcpyDeviceToHost, s);
            cudaStreamSynchronize(s);
            for (int i = 0; i < batch_len; ++i) energy += double(h_out[i]) * h_out[i];
            head = (head + batch_len) % ring.capacity();
        }
    }
    printf("filtered energy %.4f\n", energy);
    cudaFreeHost(h_out);
    cudaFreeHost(h_batch);
    cudaFree(d_out);
    cudaFree(d_batch);
    cudaStreamDestroy(s);
    return 0;
}

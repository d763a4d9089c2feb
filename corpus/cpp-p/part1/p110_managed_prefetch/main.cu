// case: managed arrays (ManagedArray in the header) are filled on the host, advised read-mostly and prefetched to the device on a stream, used by a kernel, prefetched back to the CPU, and read only after the stream synchronize: correct.
// expect: none
#include <cstdio>
#include "managed_array.h"

__global__ void smooth(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
    else if (i < n) out[i] = in[i];
}

int main() {
    const int n = 1 << 22;
    int dev = 0;
    CHECK(cudaSetDevice(dev));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    ManagedArray<float> in(n), out(n);
    for (int i = 0; i < n; ++i) in[i] = (float)(i & 1);

    CHECK(advise_read_mostly(in.data(), in.bytes(), dev));
    CHECK(prefetch_to(in.data(), in.bytes(), dev, s));
    CHECK(prefetch_to(out.data(), out.bytes(), dev, s));
    smooth<<<(n + 255) / 256, 256, 0, s>>>(in.data(), out.data(), n);
    CHECK(cudaGetLastError());
    CHECK(prefetch_to(out.data(), out.bytes(), cudaCpuDeviceId, s));
    CHECK(cudaStreamSynchronize(s));

    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += out[i];
    printf("mean %f\n", sum / n);

    CHECK(cudaStreamDestroy(s));
    return 0;
}

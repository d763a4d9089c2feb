// case: header RAII helpers (ScopedStream with a conversion operator and synchronize(), PinnedArray, DeviceArray with async copy methods and an element accessor that copies one value back) drive an upload/compute/download on two streams joined by an event; the host reads only after synchronize() and reads device values only through at()
// expect: none
#include "gpu_utils.cuh"

__global__ void softplus(const float* in, float* out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = log1pf(expf(in[i]));
}

int main() {
    const size_t n = size_t(1) << 22;
    ScopedStream upload, compute;
    cudaEvent_t ready;
    GPU_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));

    PinnedArray<float> h_in(n), h_out(n);
    for (size_t i = 0; i < n; ++i) h_in[i] = float(i % 200) / 20.f - 5.f;

    DeviceArray<float> d_in(n), d_out(n);
    d_in.copy_from_async(h_in, upload);
    GPU_CHECK(cudaEventRecord(ready, upload));
    GPU_CHECK(cudaStreamWaitEvent(compute, ready, 0));
    softplus<<<(unsigned)((n + 255) / 256), 256, 0, compute>>>(d_in.data(), d_out.data(), n);
    GPU_CHECK(cudaGetLastError());
    d_out.copy_to_async(h_out, compute);
    compute.synchronize();

    double total = 0.0;
    for (size_t i = 0; i < n; ++i) total += h_out[i];
    float probe = d_out.at(n / 2);
    std::printf("sum=%.3f probe=%.4f\n", total, probe);

    upload.synchronize();
    GPU_CHECK(cudaEventDestroy(ready));
    return 0;
}

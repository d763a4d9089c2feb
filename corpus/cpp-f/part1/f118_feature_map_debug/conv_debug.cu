// case: a CNN layer debug build runs a 3x3 convolution into a Tensor whose data is cudaMalloc'd and then calls the header helper print_channel_stats, which indexes the device pointer on the host (the to_host path next to it is correct).
// expect: host_deref_device_ptr=1
#include "tensor.h"

__global__ void conv3x3_relu(const float* in, const float* k, float* out, int cin, int cout, int h, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int co = blockIdx.z;
    if (x >= w || y >= h) return;
    float acc = 0.f;
    for (int ci = 0; ci < cin; ++ci)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int yy = min(max(y + dy, 0), h - 1), xx = min(max(x + dx, 0), w - 1);
                acc += in[((size_t)ci * h + yy) * w + xx] * k[((co * cin + ci) * 3 + dy + 1) * 3 + dx + 1];
            }
    out[((size_t)co * h + y) * w + x] = fmaxf(acc, 0.f);
}

int main() {
    const int cin = 16, cout = 32, h = 224, w = 224;
    Tensor input = make_tensor(cin, h, w);
    Tensor output = make_tensor(cout, h, w);
    float* d_kernel = nullptr;
    const size_t kbytes = (size_t)cout * cin * 9 * sizeof(float);
    CUDA_CHECK(cudaMalloc(&d_kernel, kbytes));

    std::vector<float> host_in(input.numel());
    for (size_t i = 0; i < host_in.size(); ++i) host_in[i] = (float)(i % 255) / 255.f;
    std::vector<float> host_k(kbytes / sizeof(float), 1.f / 144.f);
    CUDA_CHECK(cudaMemcpy(input.data, host_in.data(), host_in.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_kernel, host_k.data(), kbytes, cudaMemcpyHostToDevice));

    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16, cout);
    conv3x3_relu<<<grid, block>>>(input.data, d_kernel, output.data, cin, cout, h, w);
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<float> host_out = to_host(output);
    printf("out[0] = %f\n", host_out[0]);
    print_channel_stats(output, 0);

    CUDA_CHECK(cudaFree(d_kernel));
    free_tensor(output);
    free_tensor(input);
    return 0;
}

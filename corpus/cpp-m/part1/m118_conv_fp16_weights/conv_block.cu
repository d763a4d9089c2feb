// case: A conv block converts its weights to fp16 and uploads them with a byte count computed with sizeof(float) into a buffer sized for __half (2x past both sides: copy_out_of_bounds), and uploads the packed scale+shift array (2*kOutC floats) into the kOutC-float constant c_bn_scale (copy_out_of_bounds on the symbol).
// expect: copy_out_of_bounds=2
#include "conv_layer.h"
#include <cmath>
#include <vector>

int main() {
    std::vector<float> w_fp32(kWeightCount);
    for (int i = 0; i < kWeightCount; ++i) w_fp32[i] = 0.02f * std::sin(0.37f * i);
    std::vector<__half> w_fp16(kWeightCount);
    for (int i = 0; i < kWeightCount; ++i) w_fp16[i] = __float2half(w_fp32[i]);

    // scale in [0, kOutC), shift in [kOutC, 2*kOutC), as the exporter writes them
    std::vector<float> bn_packed(2 * kOutC);
    for (int c = 0; c < kOutC; ++c) {
        bn_packed[c] = 1.0f + 0.01f * c;
        bn_packed[kOutC + c] = -0.05f;
    }

    std::vector<float> input(kInputCount);
    for (int i = 0; i < kInputCount; ++i) input[i] = float((i * 31) % 255) / 255.0f;

    __half* d_w = nullptr;
    float *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_w, kWeightCount * sizeof(__half)));
    CUDA_CHECK(cudaMalloc(&d_in, kInputCount * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, kOutputCount * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_w, w_fp16.data(), kWeightCount * sizeof(float), cudaMemcpyHostToDevice));  // EXPECT: copy_out_of_bounds
    CUDA_CHECK(cudaMemcpy(d_in, input.data(), kInputCount * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(c_bn_scale, bn_packed.data(), 2 * kOutC * sizeof(float)));  // EXPECT: copy_out_of_bounds
    CUDA_CHECK(cudaMemcpyToSymbol(c_bn_shift, bn_packed.data() + kOutC, kOutC * sizeof(float)));

    dim3 block(16, 16), grid((kWidth + 15) / 16, (kHeight + 15) / 16, kOutC);
    conv3x3_bn_relu<<<grid, block>>>(d_in, d_w, d_out);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> output(kOutputCount);
    CUDA_CHECK(cudaMemcpy(output.data(), d_out, kOutputCount * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0.0;
    int active = 0;
    for (float v : output) { sum += v; active += v > 0.0f; }
    std::printf("conv out: sum %.3f, %d of %d active\n", sum, active, kOutputCount);

    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_w));
    return 0;
}

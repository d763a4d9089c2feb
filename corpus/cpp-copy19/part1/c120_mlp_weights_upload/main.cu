// case: two-layer MLP inference (sizes in mlp_config.h, kernel in mlp_kernels.cuh) whose second weight matrix upload is pasted from the first and copies W1_ELEMS floats into the W2_ELEMS buffer
// expect: copy_out_of_bounds=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include "mlp_config.h"
#include "mlp_kernels.cuh"

static float h_w1[W1_ELEMS], h_b1[MLP_HID];
static float h_w2[W2_ELEMS], h_b2[MLP_OUT];
static float h_x[MLP_BATCH * MLP_IN], h_y[MLP_BATCH * MLP_OUT];

static void init_params(void)
{
    for (int i = 0; i < W1_ELEMS; ++i) h_w1[i] = 0.01f * (float)((i % 17) - 8);
    for (int i = 0; i < W2_ELEMS; ++i) h_w2[i] = 0.02f * (float)((i % 11) - 5);
    for (int i = 0; i < MLP_HID; ++i) h_b1[i] = 0.1f;
    for (int i = 0; i < MLP_OUT; ++i) h_b2[i] = 0.0f;
    for (int i = 0; i < MLP_BATCH * MLP_IN; ++i) h_x[i] = (float)(i % 255) / 255.0f;
}

int main(void)
{
    float *d_w1, *d_b1, *d_w2, *d_b2, *d_x, *d_h, *d_y;
    init_params();

    cudaMalloc(&d_w1, W1_ELEMS * sizeof(float));
    cudaMalloc(&d_b1, MLP_HID * sizeof(float));
    cudaMalloc(&d_w2, W2_ELEMS * sizeof(float));
    cudaMalloc(&d_b2, MLP_OUT * sizeof(float));
    cudaMalloc(&d_x, MLP_BATCH * MLP_IN * sizeof(float));
    cudaMalloc(&d_h, MLP_BATCH * MLP_HID * sizeof(float));
    cudaMalloc(&d_y, MLP_BATCH * MLP_OUT * sizeof(float));

    cudaMemcpy(d_w1, h_w1, W1_ELEMS * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b1, h_b1, MLP_HID * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w2, h_w2, W1_ELEMS * sizeof(float), cudaMemcpyHostToDevice); // EXPECT: copy_out_of_bounds
    cudaMemcpy(d_b2, h_b2, MLP_OUT * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, h_x, MLP_BATCH * MLP_IN * sizeof(float), cudaMemcpyHostToDevice);

    dense_forward<<<dim3((MLP_HID + 63) / 64, MLP_BATCH), 64>>>(d_x, d_w1, d_b1, d_h, MLP_IN, MLP_HID, 1);
    dense_forward<<<dim3(1, MLP_BATCH), 64>>>(d_h, d_w2, d_b2, d_y, MLP_HID, MLP_OUT, 0);
    cudaMemcpy(h_y, d_y, MLP_BATCH * MLP_OUT * sizeof(float), cudaMemcpyDeviceToHost);

    printf("logit[0][0] = %f\n", h_y[0]);

    cudaFree(d_w1); cudaFree(d_b1);
    cudaFree(d_w2); cudaFree(d_b2);
    cudaFree(d_x); cudaFree(d_h); cudaFree(d_y);
    return 0;
}

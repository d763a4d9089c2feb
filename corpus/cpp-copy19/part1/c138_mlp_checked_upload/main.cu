// case: two-layer MLP (dims in net_dims.h) whose parameters are uploaded by a to_device(host, count) helper (upload.cuh) that allocates exactly count floats and copies count floats
// expect: none
#include "net_dims.h"
#include "upload.cuh"

static float h_w1[L1_W], h_b1[NET_HID], h_w2[L2_W], h_b2[NET_OUT];
static float h_x[NET_BATCH * NET_IN], h_y[NET_BATCH * NET_OUT];

__global__ void dense(const float *in, const float *w, const float *b, float *out,
                      int in_dim, int out_dim, int relu)
{
    int row = blockIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= out_dim) return;
    float acc = b[col];
    for (int k = 0; k < in_dim; ++k) acc += in[row * in_dim + k] * w[k * out_dim + col];
    out[row * out_dim + col] = (relu && acc < 0.f) ? 0.f : acc;
}

int main(void)
{
    for (int i = 0; i < L1_W; ++i) h_w1[i] = 0.001f * (float)(i % 101 - 50);
    for (int i = 0; i < L2_W; ++i) h_w2[i] = 0.01f * (float)(i % 23 - 11);
    for (int i = 0; i < NET_HID; ++i) h_b1[i] = 0.01f;
    for (int i = 0; i < NET_OUT; ++i) h_b2[i] = 0.0f;
    for (int i = 0; i < NET_BATCH * NET_IN; ++i) h_x[i] = (float)(i % 256) / 256.0f;

    float *d_w1 = to_device(h_w1, L1_W);
    float *d_b1 = to_device(h_b1, NET_HID);
    float *d_w2 = to_device(h_w2, L2_W);
    float *d_b2 = to_device(h_b2, NET_OUT);
    float *d_x = to_device(h_x, NET_BATCH * NET_IN);

    float *d_h, *d_y;
    CUDA_TRY(cudaMalloc((void **)&d_h, NET_BATCH * NET_HID * sizeof(float)));
    CUDA_TRY(cudaMalloc((void **)&d_y, NET_BATCH * NET_OUT * sizeof(float)));

    dense<<<dim3(NET_HID / 64, NET_BATCH), 64>>>(d_x, d_w1, d_b1, d_h, NET_IN, NET_HID, 1);
    dense<<<dim3(1, NET_BATCH), 64>>>(d_h, d_w2, d_b2, d_y, NET_HID, NET_OUT, 0);
    CUDA_TRY(cudaMemcpy(h_y, d_y, NET_BATCH * NET_OUT * sizeof(float), cudaMemcpyDeviceToHost));

    printf("y[0][0..2] = %f %f %f\n", h_y[0], h_y[1], h_y[2]);

    cudaFree(d_w1); cudaFree(d_b1); cudaFree(d_w2); cudaFree(d_b2);
    cudaFree(d_x); cudaFree(d_h); cudaFree(d_y);
    return 0;
}

#ifndef MLP_KERNELS_CUH
#define MLP_KERNELS_CUH
#include "mlp_config.h"

// out[b][j] = act(sum_i in[b][i] * w[i][j] + bias[j])
__global__ void dense_forward(const float *in, const float *w, const float *bias,
                              float *out, int in_dim, int out_dim, int relu)
{
    int b = blockIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= out_dim) return;
    float acc = bias[j];
    for (int i = 0; i < in_dim; ++i)
        acc += in[b * in_dim + i] * w[i * out_dim + j];
    out[b * out_dim + j] = (relu && acc < 0.0f) ? 0.0f : acc;
}

#endif

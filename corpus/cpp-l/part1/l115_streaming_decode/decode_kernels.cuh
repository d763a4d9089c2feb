// Host launchers for the toy decoder's kernels (defined in decode_kernels.cu).
#pragma once
#include <cuda_runtime.h>

void launch_embed(const float* d_wte, const int* d_token, float* d_hidden, int dim, cudaStream_t s);
void launch_lm_head(const float* d_wte, const float* d_hidden, float* d_logits, int vocab, int dim,
                    cudaStream_t s);
void launch_argmax(const float* d_logits, int* d_token, int vocab, cudaStream_t s);

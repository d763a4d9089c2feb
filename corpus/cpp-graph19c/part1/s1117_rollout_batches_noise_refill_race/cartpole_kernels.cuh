#pragma once
#include <cuda_runtime.h>

// Batched CartPole (Barto, Sutton & Anderson 1983), Euler integration, 0.02 s steps.
// state = (x, x_dot, theta, theta_dot); a linear policy with Gaussian exploration noise.

constexpr int kPolicyParams = 5;  // 4 weights + bias

__device__ __forceinline__ float hash_uniform(unsigned int a, unsigned int b) {
    unsigned int h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u);
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return (h & 0xFFFFFF) / 16777216.0f;  // [0, 1)
}

// New episode for every environment; the start state depends on the episode counter.
__global__ void reset_cartpole(float4* __restrict__ state, int* __restrict__ alive,
                               float* __restrict__ returns, const unsigned int* __restrict__ episode,
                               int n) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n) return;
    const unsigned int ep = *episode;
    state[e] = make_float4(0.1f * hash_uniform(ep, 4 * e) - 0.05f,
                           0.1f * hash_uniform(ep, 4 * e + 1) - 0.05f,
                           0.1f * hash_uniform(ep, 4 * e + 2) - 0.05f,
                           0.1f * hash_uniform(ep, 4 * e + 3) - 0.05f);
    alive[e] = 1;
    returns[e] = 0.0f;
}

__global__ void cartpole_step(float4* __restrict__ state, int* __restrict__ alive,
                              float* __restrict__ returns, const float* __restrict__ params,
                              const float* __restrict__ noise, int n) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n || alive[e] == 0) return;
    float4 s = state[e];
    const float a = params[0] * s.x + params[1] * s.y + params[2] * s.z + params[3] * s.w +
                    params[4] + noise[e];
    const float force = a > 0.0f ? 10.0f : -10.0f;
    const float cos_t = cosf(s.z), sin_t = sinf(s.z);
    const float temp = (force + 0.05f * s.w * s.w * sin_t) / 1.1f;
    const float theta_acc = (9.8f * sin_t - cos_t * temp) /
                            (0.5f * (4.0f / 3.0f - 0.1f * cos_t * cos_t / 1.1f));
    const float x_acc = temp - 0.05f * theta_acc * cos_t / 1.1f;
    s.x += 0.02f * s.y;
    s.y += 0.02f * x_acc;
    s.z += 0.02f * s.w;
    s.w += 0.02f * theta_acc;
    state[e] = s;
    returns[e] += 1.0f;
    if (fabsf(s.x) > 2.4f || fabsf(s.z) > 0.2094395f) alive[e] = 0;
}

__global__ void next_episode(unsigned int* episode) { *episode += 1u; }

// case: boids flocking simulation with its device arrays as globals in boids_buffers.h; alloc_buffers() in boids_buffers.cu never allocates d_vel, so the velocity memset and the steering kernel that reads d_vel get null
// expect: unallocated_pointer=2
#include <stdio.h>
#include <stdlib.h>
#include "boids_buffers.h"
#include "boids_buffers.cu"

#define NEIGHBOR_R2 0.0025f

__global__ void steer(const float2 *pos, const float2 *vel, float2 *vel_next, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 p = pos[i], v = vel[i];
    float2 center = make_float2(0.f, 0.f), align = make_float2(0.f, 0.f);
    int cnt = 0;
    for (int j = 0; j < n; ++j) {
        float dx = pos[j].x - p.x, dy = pos[j].y - p.y;
        if (j != i && dx * dx + dy * dy < NEIGHBOR_R2) {
            center.x += pos[j].x; center.y += pos[j].y;
            align.x += vel[j].x; align.y += vel[j].y;
            ++cnt;
        }
    }
    if (cnt > 0) {
        v.x += 0.01f * (center.x / cnt - p.x) + 0.05f * (align.x / cnt - v.x);
        v.y += 0.01f * (center.y / cnt - p.y) + 0.05f * (align.y / cnt - v.y);
    }
    vel_next[i] = v;
}

__global__ void move(float2 *pos, const float2 *vel, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { pos[i].x += 0.01f * vel[i].x; pos[i].y += 0.01f * vel[i].y; }
}

int main(void)
{
    float2 *h_pos = (float2 *)malloc(NUM_BOIDS * sizeof(float2));
    for (int i = 0; i < NUM_BOIDS; ++i)
        h_pos[i] = make_float2((float)(i % 128) / 128.0f, (float)(i / 128) / 128.0f);

    alloc_buffers();
    cudaMemcpy(d_pos, h_pos, NUM_BOIDS * sizeof(float2), cudaMemcpyHostToDevice);
    cudaMemset(d_vel, 0, NUM_BOIDS * sizeof(float2)); // EXPECT: unallocated_pointer

    steer<<<NUM_BOIDS / 256, 256>>>(d_pos, d_vel, d_vel_next, NUM_BOIDS); // EXPECT: unallocated_pointer
    move<<<NUM_BOIDS / 256, 256>>>(d_pos, d_vel_next, NUM_BOIDS);
    cudaMemcpy(h_pos, d_pos, NUM_BOIDS * sizeof(float2), cudaMemcpyDeviceToHost);

    printf("boid 0 at (%f, %f)\n", h_pos[0].x, h_pos[0].y);
    free_buffers();
    free(h_pos);
    return 0;
}

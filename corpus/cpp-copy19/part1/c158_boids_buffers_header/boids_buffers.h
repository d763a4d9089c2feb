#ifndef BOIDS_BUFFERS_H
#define BOIDS_BUFFERS_H
#include <cuda_runtime.h>

#define NUM_BOIDS 16384

/* device state shared by the simulation and the renderer */
float2 *d_pos;
float2 *d_vel;
float2 *d_vel_next;

void alloc_buffers(void);
void free_buffers(void);

#endif

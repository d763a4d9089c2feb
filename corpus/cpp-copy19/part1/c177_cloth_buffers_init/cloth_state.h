#ifndef CLOTH_STATE_H
#define CLOTH_STATE_H
#include <cuda_runtime.h>

#define CLOTH_W 128
#define CLOTH_H 128
#define NUM_NODES (CLOTH_W * CLOTH_H)

/* device state of the cloth, owned by cloth_state.cu */
float3 *d_pos;
float3 *d_prev;
float3 *d_accel;

void cloth_alloc(void);
void cloth_free(void);

#endif

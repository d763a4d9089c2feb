// case: GPU hash join in C style with a goto cleanup block that releases the pinned staging buffer with cudaFree and the cudaMalloc'd hash table with cudaFreeHost (two wrong allocators); the malloc'd probe keys are freed correctly.
// expect: mismatched_free=2
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#define TABLE_SLOTS (1u << 22)
#define BUILD_ROWS  (1u << 21)
#define PROBE_ROWS  (1u << 23)
#define EMPTY_KEY   0xffffffffu
#define TRY(x) do { if ((x) != cudaSuccess) { fprintf(stderr, "line %d\n", __LINE__); goto cleanup; } } while (0)

__device__ __forceinline__ uint32_t hash32(uint32_t k) { k ^= k >> 16; k *= 0x7feb352du; k ^= k >> 15; return k; }

__global__ void build(const uint32_t* keys, uint2* table, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t k = keys[i], slot = hash32(k) & (TABLE_SLOTS - 1);
    while (atomicCAS(&table[slot].x, EMPTY_KEY, k) != EMPTY_KEY) slot = (slot + 1) & (TABLE_SLOTS - 1);
    table[slot].y = (uint32_t)i;
}

__global__ void probe(const uint32_t* keys, const uint2* table, unsigned long long* hits, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t k = keys[i], slot = hash32(k) & (TABLE_SLOTS - 1);
    for (;;) {
        uint32_t t = table[slot].x;
        if (t == k) { atomicAdd(hits, 1ULL); return; }
        if (t == EMPTY_KEY) return;
        slot = (slot + 1) & (TABLE_SLOTS - 1);
    }
}

int main(void)
{
    uint32_t* h_build = NULL;     /* pinned staging for the build side */
    uint32_t* h_probe = NULL;     /* ordinary heap */
    uint32_t *d_build = NULL, *d_probe = NULL;
    uint2* d_table = NULL;
    unsigned long long* d_hits = NULL;
    unsigned long long hits = 0;
    unsigned i;

    TRY(cudaMallocHost((void**)&h_build, BUILD_ROWS * sizeof(uint32_t)));
    h_probe = (uint32_t*)malloc(PROBE_ROWS * sizeof(uint32_t));
    if (!h_probe) goto cleanup;
    for (i = 0; i < BUILD_ROWS; ++i) h_build[i] = i * 7u + 1u;
    for (i = 0; i < PROBE_ROWS; ++i) h_probe[i] = (i * 2654435761u) % (BUILD_ROWS * 8u);

    TRY(cudaMalloc((void**)&d_build, BUILD_ROWS * sizeof(uint32_t)));
    TRY(cudaMalloc((void**)&d_probe, PROBE_ROWS * sizeof(uint32_t)));
    TRY(cudaMalloc((void**)&d_table, TABLE_SLOTS * sizeof(uint2)));
    TRY(cudaMalloc((void**)&d_hits, sizeof(unsigned long long)));
    TRY(cudaMemset(d_table, 0xff, TABLE_SLOTS * sizeof(uint2)));
    TRY(cudaMemset(d_hits, 0, sizeof(unsigned long long)));
    TRY(cudaMemcpy(d_build, h_build, BUILD_ROWS * sizeof(uint32_t), cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(d_probe, h_probe, PROBE_ROWS * sizeof(uint32_t), cudaMemcpyHostToDevice));

    build<<<BUILD_ROWS / 256, 256>>>(d_build, d_table, BUILD_ROWS);
    probe<<<PROBE_ROWS / 256, 256>>>(d_probe, d_table, d_hits, PROBE_ROWS);
    TRY(cudaMemcpy(&hits, d_hits, sizeof(hits), cudaMemcpyDeviceToHost));
    printf("join produced %llu matches\n", hits);

cleanup:
    cudaFree(d_hits);
    cudaFreeHost(d_table);
    cudaFree(d_probe);
    cudaFree(d_build);
    cudaFree(h_build);
    free(h_probe);
    return hits ? 0 : 1;
}

// case: a C-style JPEG encoder stage uploads malloc'd pixel blocks with cudaMemcpyAsync (pageable) and, in its goto-cleanup epilogue, releases the cudaMallocHost coefficient buffer with free()
// expect: pageable_async_copy=1, mismatched_free=1
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 64

__global__ void fdct_quantize(const uint8_t* px, int16_t* coeff, const uint16_t* qtab, int nblocks) {
    int b = blockIdx.x;
    int k = threadIdx.x;                 /* output frequency 0..63 */
    if (b >= nblocks) return;
    int u = k & 7, v = k >> 3;
    float acc = 0.f;
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x)
            acc += (px[b * BLOCK + y * 8 + x] - 128.f) * cospif((2 * x + 1) * u / 16.f) * cospif((2 * y + 1) * v / 16.f);
    float cu = u ? 1.f : 0.70710678f, cv = v ? 1.f : 0.70710678f;
    coeff[b * BLOCK + k] = (int16_t)lrintf(0.25f * cu * cv * acc / qtab[k]);
}

static int encode_plane(const uint8_t* plane, int width, int height, const uint16_t* qtab_host, long* nonzero) {
    int rc = -1;
    int nblocks = (width / 8) * (height / 8);
    size_t px_bytes = (size_t)nblocks * BLOCK;
    uint8_t* h_blocks = NULL;
    int16_t* h_coeff = NULL;
    uint8_t* d_blocks = NULL;
    int16_t* d_coeff = NULL;
    uint16_t* d_qtab = NULL;
    cudaStream_t stream = NULL;

    h_blocks = (uint8_t*)malloc(px_bytes);
    if (!h_blocks) goto cleanup;
    if (cudaMallocHost((void**)&h_coeff, px_bytes * sizeof(int16_t)) != cudaSuccess) goto cleanup;
    if (cudaMalloc((void**)&d_blocks, px_bytes) != cudaSuccess) goto cleanup;
    if (cudaMalloc((void**)&d_coeff, px_bytes * sizeof(int16_t)) != cudaSuccess) goto cleanup;
    if (cudaMalloc((void**)&d_qtab, BLOCK * sizeof(uint16_t)) != cudaSuccess) goto cleanup;
    if (cudaStreamCreate(&stream) != cudaSuccess) goto cleanup;

    /* raster order -> 8x8 block order */
    for (int b = 0; b < nblocks; ++b) {
        int bx = b % (width / 8), by = b / (width / 8);
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 8; ++x)
                h_blocks[b * BLOCK + y * 8 + x] = plane[(size_t)(by * 8 + y) * width + bx * 8 + x];
    }

    cudaMemcpyAsync(d_qtab, qtab_host, BLOCK * sizeof(uint16_t), cudaMemcpyHostToDevice, stream);
    cudaMemcpyAsync(d_blocks, h_blocks, px_bytes, cudaMemcpyHostToDevice, stream); /* EXPECT: pageable_async_copy */
    fdct_quantize<<<nblocks, BLOCK, 0, stream>>>(d_blocks, d_coeff, d_qtab, nblocks);
    cudaMemcpyAsync(h_coeff, d_coeff, px_bytes * sizeof(int16_t), cudaMemcpyDeviceToHost, stream);
    if (cudaStreamSynchronize(stream) != cudaSuccess) goto cleanup;
    if (cudaGetLastError() != cudaSuccess) goto cleanup;

    *nonzero = 0;
    for (size_t i = 0; i < px_bytes; ++i) *nonzero += h_coeff[i] != 0;
    rc = 0;

cleanup:
    if (stream) cudaStreamDestroy(stream);
    cudaFree(d_qtab);
    cudaFree(d_coeff);
    cudaFree(d_blocks);
    free(h_coeff); /* EXPECT: mismatched_free */
    free(h_blocks);
    return rc;
}

int main(void) {
    const int w = 1920, h = 1088;
    uint16_t qtab[BLOCK];
    for (int k = 0; k < BLOCK; ++k) qtab[k] = (uint16_t)(16 + (k & 7) + (k >> 3));
    uint8_t* luma = (uint8_t*)malloc((size_t)w * h);
    if (!luma) return 1;
    for (size_t i = 0; i < (size_t)w * h; ++i) luma[i] = (uint8_t)(i * 31 + (i >> 11));
    long nz = 0;
    int rc = encode_plane(luma, w, h, qtab, &nz);
    printf("rc=%d nonzero=%ld\n", rc, nz);
    free(luma);
    return rc ? 1 : 0;
}

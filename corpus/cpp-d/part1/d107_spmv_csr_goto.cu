// case: C-style CSR SpMV benchmark with goto cleanup: after the blocking uploads it sanity-checks the last row pointer by reading d_rowptr (a cudaMalloc pointer) on the host, and its cleanup releases the cudaHostAlloc'd result vector with free().
// expect: host_deref_device_ptr=1, mismatched_free=1
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_GOTO(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));    \
            goto cleanup;                                                         \
        }                                                                         \
    } while (0)

#define NNZ_PER_ROW 5

__global__ void spmv_csr(int nrows, const int* rowptr, const int* colidx, const float* vals,
                         const float* x, float* y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows) return;
    float sum = 0.0f;
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) sum += vals[j] * x[colidx[j]];
    y[row] = sum;
}

int main(void)
{
    int status = 1;
    const int nrows = 1 << 18;
    const int nnz = nrows * NNZ_PER_ROW;
    const int offs[NNZ_PER_ROW] = {-512, -1, 0, 1, 512};
    int *h_rowptr = NULL, *h_colidx = NULL;
    float *h_vals = NULL, *h_x = NULL, *h_y = NULL;
    int *d_rowptr = NULL, *d_colidx = NULL;
    float *d_vals = NULL, *d_x = NULL, *d_y = NULL;
    double checksum = 0.0;

    h_rowptr = (int*)malloc((nrows + 1) * sizeof(int));
    h_colidx = (int*)malloc(nnz * sizeof(int));
    h_vals = (float*)malloc(nnz * sizeof(float));
    h_x = (float*)malloc(nrows * sizeof(float));
    if (!h_rowptr || !h_colidx || !h_vals || !h_x) goto cleanup;
    CHECK_GOTO(cudaHostAlloc((void**)&h_y, nrows * sizeof(float), cudaHostAllocDefault));

    /* banded matrix, columns wrapped around so every row has NNZ_PER_ROW entries */
    for (int r = 0; r < nrows; ++r) {
        h_rowptr[r] = r * NNZ_PER_ROW;
        for (int k = 0; k < NNZ_PER_ROW; ++k) {
            h_colidx[r * NNZ_PER_ROW + k] = (r + offs[k] + nrows) % nrows;
            h_vals[r * NNZ_PER_ROW + k] = offs[k] == 0 ? 4.0f : -0.5f;
        }
        h_x[r] = 1.0f / (1 + r % 31);
    }
    h_rowptr[nrows] = nnz;

    CHECK_GOTO(cudaMalloc((void**)&d_rowptr, (nrows + 1) * sizeof(int)));
    CHECK_GOTO(cudaMalloc((void**)&d_colidx, nnz * sizeof(int)));
    CHECK_GOTO(cudaMalloc((void**)&d_vals, nnz * sizeof(float)));
    CHECK_GOTO(cudaMalloc((void**)&d_x, nrows * sizeof(float)));
    CHECK_GOTO(cudaMalloc((void**)&d_y, nrows * sizeof(float)));
    CHECK_GOTO(cudaMemcpy(d_rowptr, h_rowptr, (nrows + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_GOTO(cudaMemcpy(d_colidx, h_colidx, nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_GOTO(cudaMemcpy(d_vals, h_vals, nnz * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_GOTO(cudaMemcpy(d_x, h_x, nrows * sizeof(float), cudaMemcpyHostToDevice));

    /* the upload must have carried the whole row-pointer array */
    if (d_rowptr[nrows] != nnz) { // EXPECT: host_deref_device_ptr
        fprintf(stderr, "CSR upload truncated\n");
        goto cleanup;
    }

    spmv_csr<<<(nrows + 255) / 256, 256>>>(nrows, d_rowptr, d_colidx, d_vals, d_x, d_y);
    CHECK_GOTO(cudaGetLastError());
    CHECK_GOTO(cudaMemcpy(h_y, d_y, nrows * sizeof(float), cudaMemcpyDeviceToHost));

    for (int r = 0; r < nrows; ++r) checksum += h_y[r];
    printf("spmv: %d rows, %d nnz, checksum %.6f\n", nrows, nnz, checksum);
    status = 0;

cleanup:
    cudaFree(d_rowptr);
    cudaFree(d_colidx);
    cudaFree(d_vals);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_rowptr);
    free(h_colidx);
    free(h_vals);
    free(h_x);
    free(h_y); // EXPECT: mismatched_free
    return status;
}

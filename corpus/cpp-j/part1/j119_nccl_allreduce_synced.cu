// case: single-process NCCL all-reduce of gradients over every visible GPU, each communicator on its own stream; the host synchronizes each stream before reading the pinned copies of the reduced buffers
// expect: none
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#define CUDACHECK(cmd) do { cudaError_t e = cmd; if (e != cudaSuccess) { \
    printf("Failed: Cuda error %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(EXIT_FAILURE); } } while (0)
#define NCCLCHECK(cmd) do { ncclResult_t r = cmd; if (r != ncclSuccess) { \
    printf("Failed, NCCL error %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r)); exit(EXIT_FAILURE); } } while (0)

#define MAX_GPUS 8

int main() {
    int nDev = 0;
    CUDACHECK(cudaGetDeviceCount(&nDev));
    if (nDev > MAX_GPUS) nDev = MAX_GPUS;
    const size_t count = 32 * 1024 * 1024;

    int devs[MAX_GPUS];
    float* sendbuff[MAX_GPUS];
    float* recvbuff[MAX_GPUS];
    float* host_out[MAX_GPUS];
    cudaStream_t streams[MAX_GPUS];
    ncclComm_t comms[MAX_GPUS];

    for (int i = 0; i < nDev; ++i) {
        devs[i] = i;
        CUDACHECK(cudaSetDevice(i));
        CUDACHECK(cudaMalloc(&sendbuff[i], count * sizeof(float)));
        CUDACHECK(cudaMalloc(&recvbuff[i], count * sizeof(float)));
        CUDACHECK(cudaMallocHost(&host_out[i], count * sizeof(float)));
        CUDACHECK(cudaMemset(sendbuff[i], 1, count * sizeof(float)));
        CUDACHECK(cudaMemset(recvbuff[i], 0, count * sizeof(float)));
        CUDACHECK(cudaStreamCreate(&streams[i]));
    }
    NCCLCHECK(ncclCommInitAll(comms, nDev, devs));

    NCCLCHECK(ncclGroupStart());
    for (int i = 0; i < nDev; ++i)
        NCCLCHECK(ncclAllReduce(sendbuff[i], recvbuff[i], count, ncclFloat, ncclSum, comms[i], streams[i]));
    NCCLCHECK(ncclGroupEnd());

    for (int i = 0; i < nDev; ++i) {
        CUDACHECK(cudaSetDevice(i));
        CUDACHECK(cudaMemcpyAsync(host_out[i], recvbuff[i], count * sizeof(float),
                                  cudaMemcpyDeviceToHost, streams[i]));
    }
    for (int i = 0; i < nDev; ++i) {
        CUDACHECK(cudaSetDevice(i));
        CUDACHECK(cudaStreamSynchronize(streams[i]));
    }

    for (int i = 0; i < nDev; ++i)
        printf("rank %d: out[0]=%g\n", i, host_out[i][0]);

    for (int i = 0; i < nDev; ++i) {
        CUDACHECK(cudaSetDevice(i));
        CUDACHECK(cudaFree(sendbuff[i]));
        CUDACHECK(cudaFree(recvbuff[i]));
        CUDACHECK(cudaFreeHost(host_out[i]));
        CUDACHECK(cudaStreamDestroy(streams[i]));
        ncclCommDestroy(comms[i]);
    }
    return 0;
}

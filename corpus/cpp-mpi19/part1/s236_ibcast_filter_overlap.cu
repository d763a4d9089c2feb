// case: rank 0 designs FIR filter taps on the GPU and shares them with MPI_Ibcast of device memory; the root synchronizes its stream before starting the broadcast, all ranks normalize their signal (other buffers) while it is in flight, and the convolution that reads d_taps runs after MPI_Wait.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                    cudaGetErrorString(err_), __FILE__, __LINE__);             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

constexpr int TAPS = 63;

// windowed-sinc low-pass taps with a cutoff that changes every block
__global__ void design_lowpass(float* taps, float cutoff) {
    int k = threadIdx.x;
    if (k >= TAPS) return;
    float m = k - (TAPS - 1) / 2.0f;
    float sinc = (m == 0.0f) ? 2.0f * cutoff : sinf(6.2831853f * cutoff * m) / (3.14159265f * m);
    float window = 0.54f - 0.46f * cosf(6.2831853f * k / (TAPS - 1));
    taps[k] = sinc * window;
}

__global__ void normalize(const float* in, float* out, int n, float gain) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = gain * in[i];
}

__global__ void convolve(const float* x, const float* taps, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < TAPS; ++k) {
        int j = i - k;
        if (j >= 0) acc += taps[k] * x[j];
    }
    y[i] = acc;
}

__global__ void synth_signal(float* x, int n, int rank, int block) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = sinf(0.01f * (i + rank * 7)) + 0.3f * sinf(1.7f * (i + block));
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 20, nblocks = 12;
    const int tb = 256, nb = (n + tb - 1) / tb;

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *d_raw, *d_work, *d_out, *d_taps, *h_out;
    CHECK(cudaMalloc(&d_raw, n * sizeof(float)));
    CHECK(cudaMalloc(&d_work, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMalloc(&d_taps, TAPS * sizeof(float)));
    CHECK(cudaMallocHost(&h_out, 16 * sizeof(float)));
    CHECK(cudaMemsetAsync(d_taps, 0, TAPS * sizeof(float), s));
    CHECK(cudaStreamSynchronize(s));

    double energy = 0.0;
    for (int blk = 0; blk < nblocks; ++blk) {
        synth_signal<<<nb, tb, 0, s>>>(d_raw, n, rank, blk);
        if (rank == 0) {
            design_lowpass<<<1, 64, 0, s>>>(d_taps, 0.05f + 0.01f * blk);
            CHECK(cudaStreamSynchronize(s));
        }
        MPI_Request req;
        MPI_Ibcast(d_taps, TAPS, MPI_FLOAT, 0, MPI_COMM_WORLD, &req);
        normalize<<<nb, tb, 0, s>>>(d_raw, d_work, n, 1.0f / sqrtf((float)size));
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        convolve<<<nb, tb, 0, s>>>(d_work, d_taps, d_out, n);
        CHECK(cudaMemcpyAsync(h_out, d_out + n - 16, 16 * sizeof(float), cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        for (int k = 0; k < 16; ++k) energy += h_out[k] * h_out[k];
    }
    double total = 0.0;
    MPI_Reduce(&energy, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("tail energy: %.6f\n", total);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_raw));
    CHECK(cudaFree(d_work));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_taps));
    CHECK(cudaFreeHost(h_out));
    MPI_Finalize();
    return 0;
}

// case: two-stream stencil step where the face is packed on the comm stream; the event synchronized before MPI_Sendrecv (ev_face_ready) is recorded on that stream right after the pack kernel, so MPI reads a finished d_face, and the halo kernel runs after the blocking call returned: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_RT(call)                                                                 \
    do {                                                                              \
        const cudaError_t st_ = (call);                                               \
        if (st_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(st_)); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                             \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

__global__ void pack_face(const float* __restrict__ u, float* __restrict__ face, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) face[i] = u[(ny - 1) * nx + i];
}

__global__ void update_interior(const float* __restrict__ u, float* __restrict__ un, int nx, int ny, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y + 1;
    if (i > 0 && i < nx - 1 && j < ny - 1) {
        const int c = j * nx + i;
        un[c] = u[c] + k * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0f * u[c]);
    }
}

__global__ void update_bottom(const float* __restrict__ halo, const float* __restrict__ u, float* __restrict__ un,
                              int nx, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < nx - 1) un[i] = u[i] + k * (u[i - 1] + u[i + 1] + halo[i] + u[i + nx] - 4.0f * u[i]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int up = (rank + 1) % size, down = (rank - 1 + size) % size;

    const int nx = 8192, ny = 768, steps = 250;
    const size_t cells = static_cast<size_t>(nx) * ny;

    std::vector<float> h(cells, 0.0f);
    for (int i = 0; i < nx; ++i) h[static_cast<size_t>(ny / 3) * nx + i] = 10.0f;

    float *d_u, *d_un, *d_face, *d_halo;
    CUDA_RT(cudaMalloc(&d_u, cells * sizeof(float)));
    CUDA_RT(cudaMalloc(&d_un, cells * sizeof(float)));
    CUDA_RT(cudaMalloc(&d_face, nx * sizeof(float)));
    CUDA_RT(cudaMalloc(&d_halo, nx * sizeof(float)));
    CUDA_RT(cudaMemcpy(d_u, h.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_RT(cudaMemcpy(d_un, h.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_RT(cudaMemset(d_halo, 0, nx * sizeof(float)));

    cudaStream_t compute, comm;
    CUDA_RT(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUDA_RT(cudaStreamCreateWithFlags(&comm, cudaStreamNonBlocking));
    cudaEvent_t ev_face_ready, ev_state_ready;
    CUDA_RT(cudaEventCreateWithFlags(&ev_face_ready, cudaEventDisableTiming));
    CUDA_RT(cudaEventCreateWithFlags(&ev_state_ready, cudaEventDisableTiming));
    CUDA_RT(cudaEventRecord(ev_state_ready, compute));

    const int rb = (nx + 255) / 256;
    for (int step = 0; step < steps; ++step) {
        CUDA_RT(cudaStreamWaitEvent(comm, ev_state_ready, 0));
        pack_face<<<rb, 256, 0, comm>>>(d_u, d_face, nx, ny);
        CUDA_RT(cudaEventRecord(ev_face_ready, comm));

        update_interior<<<dim3(rb, ny - 2), 256, 0, compute>>>(d_u, d_un, nx, ny, 0.2f);

        CUDA_RT(cudaEventSynchronize(ev_face_ready));
        MPI_Sendrecv(d_face, nx, MPI_FLOAT, up, step, d_halo, nx, MPI_FLOAT, down, step,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);

        update_bottom<<<rb, 256, 0, compute>>>(d_halo, d_u, d_un, nx, 0.2f);
        CUDA_RT(cudaStreamWaitEvent(compute, ev_face_ready, 0));
        CUDA_RT(cudaMemcpyAsync(d_u, d_un, cells * sizeof(float), cudaMemcpyDeviceToDevice, compute));
        CUDA_RT(cudaEventRecord(ev_state_ready, compute));
        // The next Sendrecv writes d_halo, which update_bottom reads.
        CUDA_RT(cudaEventSynchronize(ev_state_ready));
    }
    CUDA_RT(cudaStreamSynchronize(comm));
    CUDA_RT(cudaStreamSynchronize(compute));

    CUDA_RT(cudaMemcpy(h.data(), d_u, cells * sizeof(float), cudaMemcpyDeviceToHost));
    double e = 0.0, eg = 0.0;
    for (float v : h) e += v;
    MPI_Reduce(&e, &eg, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("total %.6e\n", eg);

    CUDA_RT(cudaEventDestroy(ev_face_ready));
    CUDA_RT(cudaEventDestroy(ev_state_ready));
    CUDA_RT(cudaStreamDestroy(compute));
    CUDA_RT(cudaStreamDestroy(comm));
    CUDA_RT(cudaFree(d_u));
    CUDA_RT(cudaFree(d_un));
    CUDA_RT(cudaFree(d_face));
    CUDA_RT(cudaFree(d_halo));
    MPI_Finalize();
    return 0;
}

// case: 1-D particle migration staged through host std::vectors with the requests kept in a std::vector<MPI_Request>; the arrivals are read only after MPI_Waitall over reqs.data(), which holds both receives (near miss of s215).
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

struct Particle { float x, v; int id; };

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(err_));           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

__global__ void push(Particle* p, int n, float dt, float length) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = p[i].x + p[i].v * dt;
    if (x < 0.0f) x += length;
    if (x >= length) x -= length;
    p[i].x = x;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int cap = 1 << 16, n0 = 20000, steps = 40;
    const float width = 1.0f, length = width * size, dt = 0.01f;
    const float xlo = rank * width, xhi = xlo + width;
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;

    std::vector<Particle> parts(n0);
    for (int i = 0; i < n0; ++i)
        parts[i] = Particle{xlo + width * (i + 0.5f) / n0, ((i % 3) - 1) * 2.0f, rank * n0 + i};

    Particle* d_parts = nullptr;
    CHECK(cudaMalloc(&d_parts, cap * sizeof(Particle)));
    int n = n0;
    CHECK(cudaMemcpy(d_parts, parts.data(), n * sizeof(Particle), cudaMemcpyHostToDevice));

    std::vector<Particle> stay, to_left, to_right, from_left, from_right;
    std::vector<MPI_Request> reqs(4, MPI_REQUEST_NULL);
    for (int step = 0; step < steps; ++step) {
        push<<<(n + 255) / 256, 256>>>(d_parts, n, dt, length);
        parts.resize(n);
        CHECK(cudaMemcpy(parts.data(), d_parts, n * sizeof(Particle), cudaMemcpyDeviceToHost));

        stay.clear(); to_left.clear(); to_right.clear();
        for (const Particle& p : parts) {
            bool wrapped_left = size > 1 && rank == 0 && p.x >= length - width;
            bool wrapped_right = size > 1 && rank == size - 1 && p.x < width;
            if ((p.x < xlo && !wrapped_right) || wrapped_left) to_left.push_back(p);
            else if ((p.x >= xhi && !wrapped_left) || wrapped_right) to_right.push_back(p);
            else stay.push_back(p);
        }

        int nsend[2] = {(int)to_left.size(), (int)to_right.size()}, nrecv[2] = {0, 0};
        MPI_Sendrecv(&nsend[0], 1, MPI_INT, left, 0, &nrecv[1], 1, MPI_INT, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&nsend[1], 1, MPI_INT, right, 1, &nrecv[0], 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        from_left.resize(nrecv[0]);
        from_right.resize(nrecv[1]);

        const int psz = (int)sizeof(Particle);
        MPI_Irecv(from_left.data(), nrecv[0] * psz, MPI_BYTE, left, 2, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(from_right.data(), nrecv[1] * psz, MPI_BYTE, right, 3, MPI_COMM_WORLD, &reqs[1]);
        MPI_Isend(to_right.data(), nsend[1] * psz, MPI_BYTE, right, 2, MPI_COMM_WORLD, &reqs[2]);
        MPI_Isend(to_left.data(), nsend[0] * psz, MPI_BYTE, left, 3, MPI_COMM_WORLD, &reqs[3]);

        MPI_Waitall((int)reqs.size(), reqs.data(), MPI_STATUSES_IGNORE);
        for (int i = 0; i < nrecv[0]; ++i) stay.push_back(from_left[i]);
        for (int i = 0; i < nrecv[1]; ++i) stay.push_back(from_right[i]);

        n = (int)stay.size();
        if (n > cap) MPI_Abort(MPI_COMM_WORLD, 2);
        CHECK(cudaMemcpy(d_parts, stay.data(), n * sizeof(Particle), cudaMemcpyHostToDevice));
    }

    long long local = n, total = 0;
    MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("particles after %d steps: %lld\n", steps, total);

    CHECK(cudaFree(d_parts));
    MPI_Finalize();
    return 0;
}

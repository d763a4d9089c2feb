// HaloExchanger: periodic shift of one packed face along the decomposed axis.
// Every rank sends its top interior row to the rank above and receives the top row of the
// rank below into recv_, which the upwind update of its first row needs.
#pragma once

#include <mpi.h>
#include <cuda_runtime.h>
#include <vector>

class HaloExchanger {
public:
    HaloExchanger(MPI_Comm comm, int face_elems) : comm_(comm), count_(face_elems) {
        int rank = 0, size = 1;
        MPI_Comm_rank(comm_, &rank);
        MPI_Comm_size(comm_, &size);
        below_ = (rank + size - 1) % size;
        above_ = (rank + 1) % size;
        const size_t bytes = static_cast<size_t>(count_) * sizeof(double);
        cudaMalloc(&send_, bytes);
        cudaMalloc(&recv_, bytes);
        cudaMemset(send_, 0, bytes);
        cudaMemset(recv_, 0, bytes);
    }

    ~HaloExchanger() {
        cudaFree(send_);
        cudaFree(recv_);
    }

    HaloExchanger(const HaloExchanger&) = delete;
    HaloExchanger& operator=(const HaloExchanger&) = delete;

    double* send_buffer() { return send_; }
    const double* recv_buffer() const { return recv_; }
    int count() const { return count_; }

    // Posts the exchange; the caller must have finished writing send_buffer().
    void begin(int tag) {
        requests_.assign(2, MPI_REQUEST_NULL);
        MPI_Irecv(recv_, count_, MPI_DOUBLE, below_, tag, comm_, &requests_[0]);
        MPI_Isend(send_, count_, MPI_DOUBLE, above_, tag, comm_, &requests_[1]);
    }

    // Completes the exchange: recv_buffer() holds the face of the rank below afterwards.
    void end() {
        MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
        requests_.clear();
    }

private:
    MPI_Comm comm_;
    int count_;
    int below_ = 0;
    int above_ = 0;
    double* send_ = nullptr;
    double* recv_ = nullptr;
    std::vector<MPI_Request> requests_;
};

// missing_sync through CUDA-aware MPI: a CUDA-aware MPI library takes device, pinned and
// managed pointers but knows nothing of CUDA streams, so it reads and writes its buffers on the
// host's timeline.
// Fires: blocking MPI_Send/MPI_Ssend/MPI_Recv/MPI_Sendrecv/MPI_Sendrecv_replace/MPI_Bcast/
// MPI_Allreduce (also MPI_IN_PLACE)/MPI_Reduce/MPI_Allgather on device, pinned or managed memory
// that a kernel, a cudaMemcpyAsync or a cudaMemsetAsync may still use (legacy stream, a created
// stream, a cudaStreamNonBlocking stream a legacy cudaMemcpy does not wait for, work enqueued by
// a helper, an event recorded before the work); MPI_Isend/MPI_Irecv/MPI_Iallreduce in flight
// while a kernel, an async copy or an async memset touches the buffer, the host reads a receive
// buffer or writes a send buffer (std::vector, malloc, pinned), or the buffer is freed (cudaFree,
// cudaFreeHost, free); cudaDeviceSynchronize in place of MPI_Wait; MPI_Wait in place of a CUDA
// wait; MPI_Barrier as either; a wait on one branch only; MPI_Test called once; request arrays
// (MPI_Request[2], std::vector<MPI_Request>) with the access before MPI_Waitall; a request
// posted by a helper of this file.
// Near misses: stream/device/event synchronize before the MPI call (the event recorded after the
// work); MPI_Wait/MPI_Waitall/MPI_Waitany before the access; MPI_Test polled until done; CUDA
// work on other buffers while a request is in flight; a kernel, the host or MPI_Send only
// reading what an in-flight MPI_Isend (or a running kernel) also reads; a blocking cudaMemcpy
// back to the host, then MPI_Send of the host copy; a parameter buffer with no visible work;
// waits on both branches; frees after the wait.
#include <mpi.h>
#include <cuda_runtime.h>
#include <vector>
#include <cstdlib>

constexpr int N = 1 << 20;
constexpr int THREADS = 256;
constexpr int BLOCKS = (N + THREADS - 1) / THREADS;
constexpr size_t BYTES = N * sizeof(float);

__global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

__global__ void fill(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.0f;
}

__global__ void sum(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, in[i]);
}

// Helpers of this file: the analysis runs them where they are called.
static void enqueue_fill(float* d, int n, cudaStream_t s) {
    fill<<<(n + THREADS - 1) / THREADS, THREADS, 0, s>>>(d, n);
}

static void post_recv(float* buf, int n, int src, MPI_Request* req) {
    MPI_Irecv(buf, n, MPI_FLOAT, src, 0, MPI_COMM_WORLD, req);
}

// ---------------------------------------------------------------------------------------------
// Blocking MPI calls on memory CUDA work may still use (fires at the MPI call)
// ---------------------------------------------------------------------------------------------

// A kernel on the legacy stream writes d; MPI_Send reads it before any wait.
void fires_send_after_kernel() {
    float* d;
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS>>>(d, N);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaDeviceSynchronize();
    cudaFree(d);
}

// A device-to-device cudaMemcpyAsync on a created stream writes d_dst; MPI_Ssend reads it.
void fires_ssend_after_async_copy() {
    float *d_src, *d_dst;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d_src, BYTES);
    cudaMalloc(&d_dst, BYTES);
    cudaMemset(d_src, 0, BYTES);
    cudaMemcpyAsync(d_dst, d_src, BYTES, cudaMemcpyDeviceToDevice, s);
    MPI_Ssend(d_dst, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFree(d_src);
    cudaFree(d_dst);
    cudaStreamDestroy(s);
}

// The kernel still reads d_in; MPI_Recv overwrites it (write after read).
void fires_recv_into_kernel_input() {
    float *d_in, *d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d_in, 0, BYTES);
    scale<<<BLOCKS, THREADS>>>(d_in, d_out, N);
    MPI_Recv(d_in, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); //~ missing_sync
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaFree(d_out);
}

// MPI_Sendrecv's receive buffer d_a is still read by the kernel; its send buffer is idle.
void fires_sendrecv_recv_buffer_in_use() {
    float *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, BYTES);
    cudaMalloc(&d_b, BYTES);
    cudaMalloc(&d_c, BYTES);
    cudaMemset(d_a, 0, BYTES);
    cudaMemset(d_c, 0, BYTES);
    scale<<<BLOCKS, THREADS>>>(d_a, d_b, N);
    MPI_Sendrecv(d_c, N, MPI_FLOAT, 1, 0, d_a, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, //~ missing_sync
                 MPI_STATUS_IGNORE);
    cudaDeviceSynchronize();
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
}

// cudaMemsetAsync on a stream still writes d; MPI_Sendrecv_replace reads and writes it.
void fires_sendrecv_replace_after_memset_async() {
    float* d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    cudaMemsetAsync(d, 0, BYTES, s);
    MPI_Sendrecv_replace(d, N, MPI_FLOAT, 1, 0, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFree(d);
    cudaStreamDestroy(s);
}

// Managed memory a kernel writes, broadcast before any wait.
void fires_bcast_managed_after_kernel() {
    float* m;
    cudaMallocManaged(&m, BYTES);
    fill<<<BLOCKS, THREADS>>>(m, N);
    MPI_Bcast(m, N, MPI_FLOAT, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaDeviceSynchronize();
    cudaFree(m);
}

// MPI_IN_PLACE: the receive buffer d_acc is read and written; the sum kernel still writes it.
void fires_allreduce_in_place_after_kernel() {
    float *d_in, *d_acc;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_acc, sizeof(float));
    cudaMemset(d_in, 0, BYTES);
    cudaMemset(d_acc, 0, sizeof(float));
    sum<<<BLOCKS, THREADS>>>(d_in, d_acc, N);
    MPI_Allreduce(MPI_IN_PLACE, d_acc, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); //~ missing_sync
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaFree(d_acc);
}

// MPI_Allreduce writes d_res, which a kernel on a created stream still reads.
void fires_allreduce_recv_buffer_read_by_kernel() {
    float *d_send, *d_res, *d_out;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d_send, BYTES);
    cudaMalloc(&d_res, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d_send, 0, BYTES);
    cudaMemset(d_res, 0, BYTES);
    scale<<<BLOCKS, THREADS, 0, s>>>(d_res, d_out, N);
    MPI_Allreduce(d_send, d_res, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFree(d_send);
    cudaFree(d_res);
    cudaFree(d_out);
    cudaStreamDestroy(s);
}

// A device-to-host cudaMemcpyAsync into pinned memory; MPI_Reduce reads the pinned buffer.
void fires_reduce_pinned_after_async_copy() {
    float *d, *h_pinned;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    cudaMallocHost(&h_pinned, BYTES);
    float* h_res = (float*)malloc(BYTES);
    cudaMemset(d, 0, BYTES);
    cudaMemcpyAsync(h_pinned, d, BYTES, cudaMemcpyDeviceToHost, s);
    MPI_Reduce(h_pinned, h_res, N, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaStreamSynchronize(s);
    free(h_res);
    cudaFreeHost(h_pinned);
    cudaFree(d);
    cudaStreamDestroy(s);
}

// The kernel that writes the send buffer is launched by a helper of this file.
void fires_allgather_after_helper_fill() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    float *d_send, *d_recv;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d_send, BYTES);
    cudaMalloc(&d_recv, BYTES * size);
    enqueue_fill(d_send, N, s);
    MPI_Allgather(d_send, N, MPI_FLOAT, d_recv, N, MPI_FLOAT, MPI_COMM_WORLD); //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFree(d_send);
    cudaFree(d_recv);
    cudaStreamDestroy(s);
}

// A blocking cudaMemcpy runs on the legacy stream, which does not wait for a
// cudaStreamNonBlocking stream: the kernel there may still write d at MPI_Send.
void fires_nonblocking_stream_not_waited_by_legacy_copy() {
    float *d, *d_other;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMalloc(&d, BYTES);
    cudaMalloc(&d_other, BYTES);
    float* h_other = (float*)malloc(BYTES);
    cudaMemset(d_other, 0, BYTES);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    cudaMemcpy(h_other, d_other, BYTES, cudaMemcpyDeviceToHost);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaStreamSynchronize(s);
    free(h_other);
    cudaFree(d);
    cudaFree(d_other);
    cudaStreamDestroy(s);
}

// The event is recorded before the kernel: synchronizing it does not wait for the kernel.
void fires_event_recorded_before_kernel() {
    float* d;
    cudaStream_t s;
    cudaEvent_t ev;
    cudaStreamCreate(&s);
    cudaEventCreate(&ev);
    cudaMalloc(&d, BYTES);
    cudaEventRecord(ev, s);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    cudaEventSynchronize(ev);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFree(d);
    cudaEventDestroy(ev);
    cudaStreamDestroy(s);
}

// A kernel writes pinned host memory directly (through its unified address); MPI_Send reads it.
void fires_send_pinned_written_by_kernel() {
    float* h_pinned;
    cudaMallocHost(&h_pinned, BYTES);
    fill<<<BLOCKS, THREADS>>>(h_pinned, N);
    MPI_Send(h_pinned, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaDeviceSynchronize();
    cudaFreeHost(h_pinned);
}

// A stream from a parameter (taken as blocking): the kernel on it may still write d.
void fires_send_after_kernel_on_parameter_stream(cudaStream_t s) {
    float* d;
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFree(d);
}

// Starting a nonblocking send on memory a kernel still writes is case 1: fires at MPI_Isend.
void fires_isend_started_during_kernel() {
    float* d;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS>>>(d, N);
    MPI_Isend(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &req); //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaDeviceSynchronize();
    cudaFree(d);
}

// ---------------------------------------------------------------------------------------------
// Nonblocking MPI requests still in flight (fires at the launch, copy, memset, host access, free)
// ---------------------------------------------------------------------------------------------

// A kernel writes the buffer an in-flight MPI_Isend reads.
void fires_kernel_writes_isend_buffer() {
    float* d;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    cudaMemset(d, 0, BYTES);
    MPI_Isend(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &req);
    fill<<<BLOCKS, THREADS>>>(d, N); //~ missing_sync
    cudaDeviceSynchronize();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaFree(d);
}

// An async copy reads the buffer an in-flight MPI_Irecv writes.
void fires_async_copy_reads_irecv_buffer() {
    float *d, *h_pinned;
    MPI_Request req;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    cudaMallocHost(&h_pinned, BYTES);
    MPI_Irecv(d, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    cudaMemcpyAsync(h_pinned, d, BYTES, cudaMemcpyDeviceToHost, s); //~ missing_sync
    cudaStreamSynchronize(s);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaFreeHost(h_pinned);
    cudaFree(d);
    cudaStreamDestroy(s);
}

// An async memset writes the buffer an in-flight MPI_Irecv also writes.
void fires_memset_async_on_irecv_buffer() {
    float* d;
    MPI_Request req;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMalloc(&d, BYTES);
    MPI_Irecv(d, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    cudaMemsetAsync(d, 0, BYTES, s); //~ missing_sync
    cudaStreamSynchronize(s);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaFree(d);
    cudaStreamDestroy(s);
}

// A kernel reads what an in-flight MPI_Iallreduce (in place) writes.
void fires_kernel_reads_iallreduce_buffer() {
    float *d, *d_out;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d, 0, BYTES);
    MPI_Iallreduce(MPI_IN_PLACE, d, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
    scale<<<BLOCKS, THREADS>>>(d, d_out, N); //~ missing_sync
    cudaDeviceSynchronize();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaFree(d);
    cudaFree(d_out);
}

// The host reads a std::vector an in-flight MPI_Irecv writes.
void fires_host_reads_irecv_vector() {
    std::vector<float> h(N);
    MPI_Request req;
    MPI_Irecv(h.data(), N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    float first = h[0]; //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    (void)first;
}

// The host writes a malloc'd buffer an in-flight MPI_Isend reads.
void fires_host_writes_isend_buffer() {
    float* h = (float*)malloc(BYTES);
    MPI_Request req;
    for (int i = 0; i < N; ++i) h[i] = 1.0f;
    MPI_Isend(h, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &req);
    h[0] = 2.0f; //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(h);
}

// The host writes pinned memory an in-flight MPI_Irecv writes.
void fires_host_writes_pinned_irecv_buffer() {
    float* h_pinned;
    MPI_Request req;
    cudaMallocHost(&h_pinned, BYTES);
    MPI_Irecv(h_pinned, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    h_pinned[0] = 0.0f; //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaFreeHost(h_pinned);
}

// cudaFree of device memory an in-flight MPI_Irecv writes.
void fires_cudafree_during_irecv() {
    float* d;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    MPI_Irecv(d, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    cudaFree(d); //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

// free of a host buffer an in-flight MPI_Isend reads.
void fires_free_during_isend() {
    float* h = (float*)malloc(BYTES);
    MPI_Request req;
    for (int i = 0; i < N; ++i) h[i] = 1.0f;
    MPI_Isend(h, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &req);
    free(h); //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

// cudaFreeHost of pinned memory an in-flight MPI_Isend reads.
void fires_cudafreehost_during_isend() {
    float* h_pinned;
    MPI_Request req;
    cudaMallocHost(&h_pinned, BYTES);
    for (int i = 0; i < N; ++i) h_pinned[i] = 1.0f;
    MPI_Isend(h_pinned, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &req);
    cudaFreeHost(h_pinned); //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

// The request is posted by a helper of this file; the kernel reads the receive buffer.
void fires_helper_posted_irecv_then_kernel() {
    float *d, *d_out;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    cudaMalloc(&d_out, BYTES);
    post_recv(d, N, 0, &req);
    scale<<<BLOCKS, THREADS>>>(d, d_out, N); //~ missing_sync
    cudaDeviceSynchronize();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaFree(d);
    cudaFree(d_out);
}

// ---------------------------------------------------------------------------------------------
// Waits of the wrong kind, or on some paths only
// ---------------------------------------------------------------------------------------------

// cudaDeviceSynchronize does not complete the MPI request: the kernel reads d mid-receive.
void fires_device_sync_instead_of_mpi_wait() {
    float *d, *d_out;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    cudaMalloc(&d_out, BYTES);
    MPI_Irecv(d, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    cudaDeviceSynchronize();
    scale<<<BLOCKS, THREADS>>>(d, d_out, N); //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaDeviceSynchronize();
    cudaFree(d);
    cudaFree(d_out);
}

// MPI_Wait (of another request) does not wait for the kernel that writes d.
void fires_mpi_wait_instead_of_cuda_sync() {
    float* d;
    float tag = 0.0f;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS>>>(d, N);
    MPI_Irecv(&tag, 1, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaDeviceSynchronize();
    cudaFree(d);
}

// MPI_Barrier does not wait for CUDA work.
void fires_barrier_instead_of_cuda_sync() {
    float* d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFree(d);
    cudaStreamDestroy(s);
}

// MPI_Barrier does not complete an MPI request.
void fires_barrier_instead_of_mpi_wait() {
    std::vector<float> h(N);
    MPI_Request req;
    MPI_Irecv(h.data(), N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    float first = h[0]; //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    (void)first;
}

// MPI_Test called once, not polled, completes nothing.
void fires_test_called_once() {
    float* h = (float*)malloc(BYTES);
    MPI_Request req;
    int flag = 0;
    MPI_Irecv(h, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    float first = h[0]; //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    (void)first;
    free(h);
}

// The stream is synchronized on rank 0 only: on the other path the kernel may still write d.
void fires_stream_sync_on_one_branch(int rank) {
    float* d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    if (rank == 0) cudaStreamSynchronize(s);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD); //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFree(d);
    cudaStreamDestroy(s);
}

// MPI_Wait on rank 0 only: on the other path the host reads mid-receive.
void fires_mpi_wait_on_one_branch(int rank) {
    std::vector<float> h(N);
    MPI_Request req;
    MPI_Irecv(h.data(), N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    if (rank == 0) MPI_Wait(&req, MPI_STATUS_IGNORE);
    float first = h[0]; //~ missing_sync
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    (void)first;
}

// Request array: the kernel reads the receive buffer of reqs[0] before MPI_Waitall.
void fires_request_array_kernel_before_waitall() {
    float *d_a, *d_b, *d_out;
    MPI_Request reqs[2];
    cudaMalloc(&d_a, BYTES);
    cudaMalloc(&d_b, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d_b, 0, BYTES);
    MPI_Irecv(d_a, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(d_b, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &reqs[1]);
    scale<<<BLOCKS, THREADS>>>(d_a, d_out, N); //~ missing_sync
    cudaDeviceSynchronize();
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_out);
}

// std::vector<MPI_Request>: the host writes the send buffer of reqs[0] before MPI_Waitall.
void fires_request_vector_host_write_before_waitall() {
    std::vector<float> h_send(N, 1.0f);
    std::vector<float> h_recv(N);
    std::vector<MPI_Request> reqs(2);
    MPI_Isend(h_send.data(), N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(h_recv.data(), N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &reqs[1]);
    h_send[0] = 3.0f; //~ missing_sync
    MPI_Waitall((int)reqs.size(), reqs.data(), MPI_STATUSES_IGNORE);
}

// ---------------------------------------------------------------------------------------------
// Near misses
// ---------------------------------------------------------------------------------------------

void ok_stream_sync_before_send() {
    float* d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    cudaStreamSynchronize(s);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
    cudaFree(d);
    cudaStreamDestroy(s);
}

void ok_parameter_stream_synced_before_send(cudaStream_t s) {
    float* d;
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    cudaStreamSynchronize(s);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
    cudaFree(d);
}

void ok_device_sync_before_allreduce_in_place() {
    float *d_in, *d_acc;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_acc, sizeof(float));
    cudaMemset(d_in, 0, BYTES);
    cudaMemset(d_acc, 0, sizeof(float));
    sum<<<BLOCKS, THREADS>>>(d_in, d_acc, N);
    cudaDeviceSynchronize();
    MPI_Allreduce(MPI_IN_PLACE, d_acc, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    cudaFree(d_in);
    cudaFree(d_acc);
}

// The event is recorded after the kernel and synchronized before the broadcast.
void ok_event_sync_before_bcast() {
    float* d;
    cudaStream_t s;
    cudaEvent_t ev;
    cudaStreamCreate(&s);
    cudaEventCreate(&ev);
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    cudaEventRecord(ev, s);
    cudaEventSynchronize(ev);
    MPI_Bcast(d, N, MPI_FLOAT, 0, MPI_COMM_WORLD);
    cudaFree(d);
    cudaEventDestroy(ev);
    cudaStreamDestroy(s);
}

void ok_nonblocking_stream_synced_before_send() {
    float* d;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    cudaStreamSynchronize(s);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
    cudaFree(d);
    cudaStreamDestroy(s);
}

void ok_helper_fill_then_stream_sync() {
    float* d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    enqueue_fill(d, N, s);
    cudaStreamSynchronize(s);
    MPI_Ssend(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
    cudaFree(d);
    cudaStreamDestroy(s);
}

void ok_managed_synced_before_bcast() {
    float* m;
    cudaMallocManaged(&m, BYTES);
    fill<<<BLOCKS, THREADS>>>(m, N);
    cudaDeviceSynchronize();
    MPI_Bcast(m, N, MPI_FLOAT, 0, MPI_COMM_WORLD);
    cudaFree(m);
}

void ok_pinned_copy_synced_before_reduce() {
    float *d, *h_pinned;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    cudaMallocHost(&h_pinned, BYTES);
    float* h_res = (float*)malloc(BYTES);
    cudaMemset(d, 0, BYTES);
    cudaMemcpyAsync(h_pinned, d, BYTES, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    MPI_Reduce(h_pinned, h_res, N, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    free(h_res);
    cudaFreeHost(h_pinned);
    cudaFree(d);
    cudaStreamDestroy(s);
}

void ok_memset_async_synced_before_sendrecv_replace() {
    float* d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    cudaMemsetAsync(d, 0, BYTES, s);
    cudaStreamSynchronize(s);
    MPI_Sendrecv_replace(d, N, MPI_FLOAT, 1, 0, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    cudaFree(d);
    cudaStreamDestroy(s);
}

// The kernel that read d_in was waited for before MPI_Recv overwrites it.
void ok_recv_after_kernel_input_synced() {
    float *d_in, *d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d_in, 0, BYTES);
    scale<<<BLOCKS, THREADS>>>(d_in, d_out, N);
    cudaDeviceSynchronize();
    MPI_Recv(d_in, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    cudaFree(d_in);
    cudaFree(d_out);
}

// The kernel in flight only reads d, whose writer was waited for: MPI_Send also only reads it.
void ok_send_while_kernel_only_reads() {
    float *d, *d_out;
    cudaMalloc(&d, BYTES);
    cudaMalloc(&d_out, BYTES);
    fill<<<BLOCKS, THREADS>>>(d, N);
    cudaDeviceSynchronize();
    scale<<<BLOCKS, THREADS>>>(d, d_out, N);
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
    cudaDeviceSynchronize();
    cudaFree(d);
    cudaFree(d_out);
}

// A blocking cudaMemcpy on the legacy stream waits for the kernel; the host copy is sent.
void ok_blocking_memcpy_then_send_host_copy() {
    float* d;
    std::vector<float> h(N);
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS>>>(d, N);
    cudaMemcpy(h.data(), d, BYTES, cudaMemcpyDeviceToHost);
    MPI_Send(h.data(), N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
    cudaFree(d);
}

// A buffer from a parameter with no visible work on it: no evidence.
void ok_parameter_buffer_no_visible_work(float* d, int n) {
    MPI_Send(d, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
}

void ok_mpi_wait_before_kernel() {
    float *d, *d_out;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    cudaMalloc(&d_out, BYTES);
    MPI_Irecv(d, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    scale<<<BLOCKS, THREADS>>>(d, d_out, N);
    cudaDeviceSynchronize();
    cudaFree(d);
    cudaFree(d_out);
}

void ok_iallreduce_waited_before_kernel() {
    float *d, *d_out;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d, 0, BYTES);
    MPI_Iallreduce(MPI_IN_PLACE, d, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    scale<<<BLOCKS, THREADS>>>(d, d_out, N);
    cudaDeviceSynchronize();
    cudaFree(d);
    cudaFree(d_out);
}

void ok_waitall_array_before_host_read() {
    float* h_a = (float*)malloc(BYTES);
    float* h_b = (float*)malloc(BYTES);
    MPI_Request reqs[2];
    MPI_Irecv(h_a, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(h_b, N, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    float total = h_a[0] + h_b[0];
    (void)total;
    free(h_a);
    free(h_b);
}

void ok_waitall_vector_before_host_write() {
    std::vector<float> h_send(N, 1.0f);
    std::vector<float> h_recv(N);
    std::vector<MPI_Request> reqs(2);
    MPI_Isend(h_send.data(), N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(h_recv.data(), N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall((int)reqs.size(), reqs.data(), MPI_STATUSES_IGNORE);
    h_send[0] = h_recv[0];
}

// MPI_Waitany completes a request the analysis cannot name: no finding on either.
void ok_waitany_before_host_read() {
    std::vector<float> h_a(N);
    std::vector<float> h_b(N);
    MPI_Request reqs[2];
    int idx = 0;
    MPI_Irecv(h_a.data(), N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(h_b.data(), N, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitany(2, reqs, &idx, MPI_STATUS_IGNORE);
    float first = h_a[0];
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    (void)first;
}

void ok_test_polled_until_done() {
    float* h = (float*)malloc(BYTES);
    MPI_Request req;
    int done = 0;
    MPI_Irecv(h, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    float first = h[0];
    (void)first;
    free(h);
}

// CUDA work on other buffers while the receive is in flight.
void ok_kernel_on_other_buffer_during_irecv() {
    float *d_recv, *d_work;
    MPI_Request req;
    cudaMalloc(&d_recv, BYTES);
    cudaMalloc(&d_work, BYTES);
    MPI_Irecv(d_recv, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    fill<<<BLOCKS, THREADS>>>(d_work, N);
    cudaMemsetAsync(d_work, 0, BYTES, 0);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaDeviceSynchronize();
    cudaFree(d_recv);
    cudaFree(d_work);
}

// A kernel that only reads what an in-flight MPI_Isend also reads: two reads never race.
void ok_kernel_reads_isend_buffer() {
    float *d, *d_out;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d, 0, BYTES);
    MPI_Isend(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &req);
    scale<<<BLOCKS, THREADS>>>(d, d_out, N);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaDeviceSynchronize();
    cudaFree(d);
    cudaFree(d_out);
}

// The host reads a send buffer in flight: two reads.
void ok_host_reads_isend_buffer() {
    std::vector<float> h(N, 1.0f);
    MPI_Request req;
    MPI_Isend(h.data(), N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &req);
    float first = h[0];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    (void)first;
}

void ok_free_after_wait() {
    float* d;
    float* h = (float*)malloc(BYTES);
    MPI_Request reqs[2];
    cudaMalloc(&d, BYTES);
    for (int i = 0; i < N; ++i) h[i] = 1.0f;
    MPI_Irecv(d, N, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(h, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    cudaFree(d);
    free(h);
}

// Both branches wait before the send.
void ok_sync_on_both_branches(int rank) {
    float* d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, BYTES);
    fill<<<BLOCKS, THREADS, 0, s>>>(d, N);
    if (rank == 0) {
        cudaStreamSynchronize(s);
    } else {
        cudaDeviceSynchronize();
    }
    MPI_Send(d, N, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
    cudaFree(d);
    cudaStreamDestroy(s);
}

void ok_helper_posted_irecv_waited() {
    float *d, *d_out;
    MPI_Request req;
    cudaMalloc(&d, BYTES);
    cudaMalloc(&d_out, BYTES);
    post_recv(d, N, 0, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    scale<<<BLOCKS, THREADS>>>(d, d_out, N);
    cudaDeviceSynchronize();
    cudaFree(d);
    cudaFree(d_out);
}

// Added after the second corpora (cpp-mpi19b s309, s315): an MPI_Testall called once in a
// time-step loop is no poll; one in a loop that breaks on its flag is.
void fires_testall_once_in_time_loop(int steps) {
    float *d_ghost, *d_out;
    cudaMalloc(&d_ghost, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d_ghost, 0, BYTES);
    for (int step = 0; step < steps; ++step) {
        MPI_Request reqs[1];
        int arrived = 0;
        MPI_Irecv(d_ghost, N, MPI_FLOAT, 0, step, MPI_COMM_WORLD, &reqs[0]);
        MPI_Testall(1, reqs, &arrived, MPI_STATUSES_IGNORE);
        scale<<<BLOCKS, THREADS>>>(d_ghost, d_out, N); //~ missing_sync
        MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE);
        cudaDeviceSynchronize();
    }
    cudaFree(d_ghost);
    cudaFree(d_out);
}

void ok_testall_polled_with_break(int steps) {
    float *d_ghost, *d_out;
    cudaMalloc(&d_ghost, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d_ghost, 0, BYTES);
    for (int step = 0; step < steps; ++step) {
        MPI_Request reqs[1];
        MPI_Irecv(d_ghost, N, MPI_FLOAT, 0, step, MPI_COMM_WORLD, &reqs[0]);
        for (;;) {
            int arrived = 0;
            MPI_Testall(1, reqs, &arrived, MPI_STATUSES_IGNORE);
            if (arrived) break;
        }
        scale<<<BLOCKS, THREADS>>>(d_ghost, d_out, N);
        cudaDeviceSynchronize();
    }
    cudaFree(d_ghost);
    cudaFree(d_out);
}

// A broadcast started again each round while the last one may be in flight: one mistake,
// reported once, where new work first meets it.
void fires_ibcast_restarted_before_wait(int steps, int every) {
    float *d_ema, *d_w;
    cudaMalloc(&d_ema, BYTES);
    cudaMalloc(&d_w, BYTES);
    cudaMemset(d_w, 0, BYTES);
    cudaMemset(d_ema, 0, BYTES);
    MPI_Request req = MPI_REQUEST_NULL;
    for (int step = 1; step <= steps; ++step) {
        scale<<<BLOCKS, THREADS>>>(d_w, d_ema, N); //~ missing_sync
        if (req != MPI_REQUEST_NULL) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        if (step % every == 0) {
            cudaDeviceSynchronize();
            MPI_Ibcast(d_ema, N, MPI_FLOAT, 0, MPI_COMM_WORLD, &req);
        }
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cudaDeviceSynchronize();
    cudaFree(d_ema);
    cudaFree(d_w);
}

// A request is a handle, copied by value (rust-mpi19c r413's shape): one a helper returns is
// the one its receive started.
static MPI_Request post_ghost_recv(float* buf, int n) {
    MPI_Request r;
    MPI_Irecv(buf, n, MPI_FLOAT, 0, 3, MPI_COMM_WORLD, &r);
    return r;
}

void ok_returned_request_waited_in_array() {
    float *d_in, *d_edge, *d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_edge, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d_edge, 0, BYTES);
    MPI_Request reqs[2];
    reqs[0] = post_ghost_recv(d_in, N);
    MPI_Isend(d_edge, N, MPI_FLOAT, 1, 3, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    scale<<<BLOCKS, THREADS>>>(d_in, d_out, N);
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaFree(d_edge);
    cudaFree(d_out);
}

void fires_returned_request_only_the_send_waited() {
    float *d_in, *d_edge, *d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_edge, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d_edge, 0, BYTES);
    MPI_Request reqs[2];
    reqs[0] = post_ghost_recv(d_in, N);
    MPI_Isend(d_edge, N, MPI_FLOAT, 1, 3, MPI_COMM_WORLD, &reqs[1]);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    scale<<<BLOCKS, THREADS>>>(d_in, d_out, N); //~ missing_sync
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaFree(d_edge);
    cudaFree(d_out);
}

// A helper that starts a send and hands its request back through a pointer into the caller's
// array (cpp-mpi19c s418): the caller's MPI_Waitall completes it.
static void ship(float* d_stage, int n, cudaStream_t s, MPI_Request* req) {
    fill<<<BLOCKS, THREADS, 0, s>>>(d_stage, n);
    cudaStreamSynchronize(s);
    MPI_Isend(d_stage, n, MPI_FLOAT, 1, 4, MPI_COMM_WORLD, req);
}

void ok_helper_request_through_pointer_waited(int steps) {
    float *d_stage, *d_backup;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d_stage, BYTES);
    cudaMalloc(&d_backup, BYTES);
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int step = 0; step < steps; ++step) {
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        MPI_Irecv(d_backup, N, MPI_FLOAT, 1, 4, MPI_COMM_WORLD, &reqs[0]);
        ship(d_stage, N, s, &reqs[1]);
    }
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    cudaFree(d_stage);
    cudaFree(d_backup);
    cudaStreamDestroy(s);
}

// Each round receives into memory it just allocated (cpp-mpi19c s412): the last round's receive
// uses other memory.
void ok_receive_into_new_buffer_each_round(int total) {
    std::vector<float*> d_tiles(total, nullptr);
    std::vector<MPI_Request> rreq(total, MPI_REQUEST_NULL);
    for (int i = 0; i < total; ++i) {
        cudaMalloc(&d_tiles[i], BYTES);
        MPI_Irecv(d_tiles[i], N, MPI_FLOAT, 1, i, MPI_COMM_WORLD, &rreq[i]);
    }
    MPI_Waitall(total, rreq.data(), MPI_STATUSES_IGNORE);
    for (int i = 0; i < total; ++i) cudaFree(d_tiles[i]);
}

// A helper that waits over a vector of requests unless it is empty (rust-mpi19d r502's shape):
// the path that skips the wait held no request. A wait only when the window is full
// (cpp-mpi19b s327) leaves the others in flight.
static void wait_all(std::vector<MPI_Request>& reqs) {
    if (reqs.empty()) return;
    MPI_Waitall((int)reqs.size(), reqs.data(), MPI_STATUSES_IGNORE);
    reqs.clear();
}

void ok_requests_waited_by_a_helper_that_skips_an_empty_vector(int sweeps) {
    float *d_ghost, *d_out;
    cudaMalloc(&d_ghost, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemset(d_ghost, 0, BYTES);
    std::vector<MPI_Request> reqs;
    for (int k = 0; k < sweeps; ++k) {
        reqs.push_back(MPI_REQUEST_NULL);
        MPI_Irecv(d_ghost, N, MPI_FLOAT, 0, k, MPI_COMM_WORLD, &reqs.back());
        wait_all(reqs);
        scale<<<BLOCKS, THREADS>>>(d_ghost, d_out, N);
        cudaDeviceSynchronize();
    }
    cudaFree(d_ghost);
    cudaFree(d_out);
}

void fires_window_of_sends_waited_only_when_full(int frames, int window) {
    float* h_msg;
    cudaMallocHost(&h_msg, BYTES);
    std::vector<MPI_Request> inflight;
    for (int f = 0; f < frames; ++f) {
        h_msg[0] = (float)f; //~ missing_sync
        inflight.push_back(MPI_REQUEST_NULL);
        MPI_Isend(h_msg, N, MPI_FLOAT, 1, f, MPI_COMM_WORLD, &inflight.back());
        if ((int)inflight.size() == window) {
            MPI_Waitall((int)inflight.size(), inflight.data(), MPI_STATUSES_IGNORE);
            inflight.clear();
        }
    }
    MPI_Waitall((int)inflight.size(), inflight.data(), MPI_STATUSES_IGNORE);
    cudaFreeHost(h_msg);
}

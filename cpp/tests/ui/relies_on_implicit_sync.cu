// relies_on_implicit_sync: orderings that hold only because a CUDA call happens to
// synchronize. Covered: (1) `cudaFree`, `cudaFreeHost` and `cuMemFree` of memory that a
// kernel, an asynchronous copy or an asynchronous memset enqueued before may still use, on a
// stream given by the caller, a blocking stream, a non-blocking stream and the legacy default
// stream, through an RAII destructor at the end of a block, a helper, a loop, and a wait on only
// one branch; (2) a host read or write of managed or pinned memory, new work on another
// stream and a stream-ordered free on another stream, ordered after the work that uses the
// memory only by a free of other memory; (3) the pageable destination of an asynchronous
// device-to-host copy (`malloc`, `new[]`, `std::vector`, a stack array, through the runtime and
// the driver API) read or written before the stream is waited for. Near misses: stream, device,
// context and event synchronization, queries polled until the work is done, a blocking copy
// back after work on the legacy or a blocking stream, `cudaFreeAsync` on the work's stream,
// frees of memory no pending work uses, `cudaStreamWaitEvent`, blocking copies into pageable
// memory, and memory from a parameter freed with no work visible.
#include <cuda.h>
#include <cuda_runtime.h>
#include <memory>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

#define N (1 << 20)
#define BYTES (N * sizeof(float))
#define SMALL 4096
#define SMALL_BYTES (SMALL * sizeof(float))
#define THREADS 256
#define BLOCKS ((N + THREADS - 1) / THREADS)
#define SMALL_BLOCKS ((SMALL + THREADS - 1) / THREADS)

// out[i] = a * in[i]: reads `in`, writes `out`.
__global__ void scale(const float* in, float* out, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * in[i];
    }
}

// out[i] = v: writes `out` only.
__global__ void fill(float* out, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = v;
    }
}

// data[i] = data[i]^2: reads and writes `data`.
__global__ void square_inplace(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = data[i] * data[i];
    }
}

// acc[i] += in[i]: reads `in`, reads and writes `acc`.
__global__ void accumulate(const float* in, float* acc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        acc[i] += in[i];
    }
}

// Owns device memory for the length of a block: `cudaFree` in the destructor.
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t bytes) : ptr(nullptr) { cudaMalloc(&ptr, bytes); }
    ~DeviceBuffer() { cudaFree(ptr); } //~ relies_on_implicit_sync
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    float* ptr;
};

// Releases a device buffer (the launchers of fastfields #88 free through one like it).
static void release(float* p) {
    cudaFree(p); //~ relies_on_implicit_sync
}

// ---------------------------------------------------------------------------------------
// (1) A free that is not documented to wait, while work may still use the memory.
// ---------------------------------------------------------------------------------------

// The kernel on a blocking stream may still read d_in when it is freed.
void fires_free_input_right_after_launch(const float* h_in, float* h_out) {
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    float* d_in;
    float* d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemcpy(d_in, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_out, 2.0f, N);
    cudaFree(d_in); //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    cudaMemcpy(h_out, d_out, BYTES, cudaMemcpyDeviceToHost);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

// The legacy default stream: the blocking copy back comes after the free, not before it.
void fires_free_after_legacy_stream_launch(const float* h_in, float* h_out) {
    float* d_in;
    float* d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemcpy(d_in, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS>>>(d_in, d_out, 0.5f, N);
    cudaFree(d_in); //~ relies_on_implicit_sync
    cudaMemcpy(h_out, d_out, BYTES, cudaMemcpyDeviceToHost);
    cudaFree(d_out);
}

// The RAII scratch buffer is freed by its destructor at the end of the block, right after
// the launch that reads it.
void fires_raii_scratch_freed_at_scope_end(const float* h_in, float* h_out, cudaStream_t stream) {
    DeviceBuffer out(BYTES);
    {
        DeviceBuffer scratch(BYTES);
        cudaMemcpy(scratch.ptr, h_in, BYTES, cudaMemcpyHostToDevice);
        scale<<<BLOCKS, THREADS, 0, stream>>>(scratch.ptr, out.ptr, 3.0f, N);
    }
    cudaStreamSynchronize(stream);
    cudaMemcpy(h_out, out.ptr, BYTES, cudaMemcpyDeviceToHost);
}

// A helper frees the input while the kernel may still read it.
void fires_helper_frees_after_launch(const float* h_in, float* d_acc, cudaStream_t stream) {
    float* d_tmp;
    cudaMalloc(&d_tmp, BYTES);
    cudaMemcpy(d_tmp, h_in, BYTES, cudaMemcpyHostToDevice);
    accumulate<<<BLOCKS, THREADS, 0, stream>>>(d_tmp, d_acc, N);
    release(d_tmp);
    cudaStreamSynchronize(stream);
}

// Each round frees its term while the kernel of that round may still read it.
void fires_free_in_loop(const float* h_terms, float* d_acc, int rounds, cudaStream_t stream) {
    for (int r = 0; r < rounds; ++r) {
        float* d_term;
        cudaMalloc(&d_term, BYTES);
        cudaMemcpy(d_term, h_terms + (size_t)r * N, BYTES, cudaMemcpyHostToDevice);
        accumulate<<<BLOCKS, THREADS, 0, stream>>>(d_term, d_acc, N);
        cudaFree(d_term); //~ relies_on_implicit_sync
    }
    cudaStreamSynchronize(stream);
}

// A non-blocking stream: the kernel that reads d_in was enqueued after the last wait.
void fires_free_on_non_blocking_stream(float* h_out) {
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    float* d_in;
    float* d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    fill<<<BLOCKS, THREADS, 0, stream>>>(d_in, 1.5f, N);
    cudaStreamSynchronize(stream);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_out, 2.0f, N);
    cudaFree(d_in); //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    cudaMemcpy(h_out, d_out, BYTES, cudaMemcpyDeviceToHost);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

// The pinned staging buffer is released while the upload may still read it.
void fires_free_host_while_upload_reads_it(float* d_dst, cudaStream_t stream) {
    float* h_stage;
    cudaMallocHost(&h_stage, BYTES);
    std::fill(h_stage, h_stage + N, 1.0f);
    cudaMemcpyAsync(d_dst, h_stage, BYTES, cudaMemcpyHostToDevice, stream);
    cudaFreeHost(h_stage); //~ relies_on_implicit_sync
    square_inplace<<<BLOCKS, THREADS, 0, stream>>>(d_dst, N);
    cudaStreamSynchronize(stream);
}

// Driver API: cuMemFree of the source of a read-back still in flight.
float fires_cu_mem_free_while_readback_runs(CUstream stream) {
    CUdeviceptr d_buf;
    cuMemAlloc(&d_buf, BYTES);
    cuMemsetD32(d_buf, 0x3f800000u, N);
    void* h_pinned;
    cuMemAllocHost(&h_pinned, BYTES);
    cuMemcpyDtoHAsync(h_pinned, d_buf, BYTES, stream);
    cuMemFree(d_buf); //~ relies_on_implicit_sync
    cuStreamSynchronize(stream);
    float first = static_cast<float*>(h_pinned)[0];
    cuMemFreeHost(h_pinned);
    return first;
}

// The stream is waited for only when profiling: on the other path the free relies on
// cudaFree's implicit synchronization.
void fires_free_when_sync_only_on_one_branch(const float* h_in, float* d_out, bool profile,
                                             cudaStream_t stream) {
    float* d_in;
    cudaMalloc(&d_in, BYTES);
    cudaMemcpy(d_in, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_out, 2.0f, N);
    if (profile) {
        cudaStreamSynchronize(stream);
    }
    cudaFree(d_in); //~ relies_on_implicit_sync
}

// A key is scrubbed with an asynchronous memset and freed before the memset is known done.
void fires_free_after_async_scrub(const float* h_key, float* d_out, cudaStream_t stream) {
    float* d_key;
    cudaMalloc(&d_key, BYTES);
    cudaMemcpy(d_key, h_key, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_key, d_out, 1.0f, N);
    cudaStreamSynchronize(stream);
    cudaMemsetAsync(d_key, 0, BYTES, stream);
    cudaFree(d_key); //~ relies_on_implicit_sync
}

// ---------------------------------------------------------------------------------------
// (2) An access ordered only by a free of other memory.
// ---------------------------------------------------------------------------------------

// The managed result is read after a cudaFree of the staging buffer, which no pending work
// uses: only that free's implicit synchronization waits for square_inplace.
float fires_managed_read_after_free_of_staging(const float* h_in, cudaStream_t stream) {
    float* m_data;
    float* d_stage;
    cudaMallocManaged(&m_data, BYTES);
    cudaMalloc(&d_stage, BYTES);
    cudaMemcpy(d_stage, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_stage, m_data, 2.0f, N);
    cudaStreamSynchronize(stream);
    square_inplace<<<BLOCKS, THREADS, 0, stream>>>(m_data, N);
    cudaFree(d_stage);
    float first = m_data[0]; //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    cudaFree(m_data);
    return first;
}

// The pinned destination of a read-back is read after freeing the retired buffer.
float fires_pinned_readback_after_free_of_retired(float* d_retired, cudaStream_t stream) {
    float* d_res;
    float* h_res;
    cudaMalloc(&d_res, BYTES);
    cudaMallocHost(&h_res, BYTES);
    fill<<<BLOCKS, THREADS, 0, stream>>>(d_res, 3.0f, N);
    cudaMemcpyAsync(h_res, d_res, BYTES, cudaMemcpyDeviceToHost, stream);
    cudaFree(d_retired);
    float first = h_res[0]; //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    cudaFree(d_res);
    cudaFreeHost(h_res);
    return first;
}

// The pinned source of an upload is rewritten after cudaFreeHost of another buffer.
void fires_pinned_source_rewritten_after_free_host(float* d_dst, float* h_retired,
                                                   cudaStream_t stream) {
    float* h_stage;
    cudaMallocHost(&h_stage, BYTES);
    std::fill(h_stage, h_stage + N, 1.0f);
    cudaMemcpyAsync(d_dst, h_stage, BYTES, cudaMemcpyHostToDevice, stream);
    cudaFreeHost(h_retired);
    h_stage[0] = 2.0f; //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    cudaFreeHost(h_stage);
}

// Managed input the kernel reads is overwritten by the host after an unrelated cudaFree.
void fires_managed_input_overwritten_after_free(float* d_out, float* d_retired,
                                                cudaStream_t stream) {
    float* m_in;
    cudaMallocManaged(&m_in, BYTES);
    std::fill(m_in, m_in + N, 1.0f);
    scale<<<BLOCKS, THREADS, 0, stream>>>(m_in, d_out, 2.0f, N);
    cudaFree(d_retired);
    m_in[0] = 5.0f; //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    cudaFree(m_in);
}

// The consumer stream reads what the producer stream may still write; only the cudaFree of a
// buffer the pending kernel does not use stands between them.
void fires_other_stream_reads_after_free_of_temp(const float* h_in, float* d_out) {
    cudaStream_t producer;
    cudaStream_t consumer;
    cudaStreamCreate(&producer);
    cudaStreamCreate(&consumer);
    float* d_mid;
    float* d_tmp;
    cudaMalloc(&d_mid, BYTES);
    cudaMalloc(&d_tmp, BYTES);
    cudaMemcpy(d_tmp, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, producer>>>(d_tmp, d_mid, 2.0f, N);
    cudaStreamSynchronize(producer);
    square_inplace<<<BLOCKS, THREADS, 0, producer>>>(d_mid, N);
    cudaFree(d_tmp);
    scale<<<BLOCKS, THREADS, 0, consumer>>>(d_mid, d_out, 0.5f, N); //~ relies_on_implicit_sync
    cudaStreamSynchronize(consumer);
    cudaStreamSynchronize(producer);
    cudaFree(d_mid);
    cudaStreamDestroy(producer);
    cudaStreamDestroy(consumer);
}

// A stream-ordered free on the cleanup stream, ordered after the kernel on the work stream
// only by the cudaFree of a retired buffer.
void fires_free_async_on_other_stream_after_free(const float* d_in, float* d_retired) {
    cudaStream_t work;
    cudaStream_t cleanup;
    cudaStreamCreate(&work);
    cudaStreamCreate(&cleanup);
    float* d_tmp;
    cudaMallocAsync(&d_tmp, BYTES, work);
    scale<<<BLOCKS, THREADS, 0, work>>>(d_in, d_tmp, 2.0f, N);
    cudaFree(d_retired);
    cudaFreeAsync(d_tmp, cleanup); //~ relies_on_implicit_sync
    cudaStreamSynchronize(cleanup);
    cudaStreamSynchronize(work);
    cudaStreamDestroy(work);
    cudaStreamDestroy(cleanup);
}

// ---------------------------------------------------------------------------------------
// (3) The pageable destination of an asynchronous copy used before a wait.
// ---------------------------------------------------------------------------------------

// malloc'd destination summed right after the copy is enqueued.
double fires_malloc_readback_summed_before_wait(cudaStream_t stream) {
    float* d_res;
    cudaMalloc(&d_res, BYTES);
    fill<<<BLOCKS, THREADS, 0, stream>>>(d_res, 1.0f, N);
    float* h_res = static_cast<float*>(malloc(BYTES));
    cudaMemcpyAsync(h_res, d_res, BYTES, cudaMemcpyDeviceToHost, stream); //~ pageable_async_copy
    double sum = std::accumulate(h_res, h_res + N, 0.0); //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    free(h_res);
    cudaFree(d_res);
    return sum;
}

// new[]'d destination written by the host before the copy into it is waited for.
void fires_new_array_readback_overwritten_before_wait(const float* d_src, cudaStream_t stream) {
    float* h = new float[N];
    cudaMemcpyAsync(h, d_src, BYTES, cudaMemcpyDeviceToHost, stream); //~ pageable_async_copy
    h[0] = 0.0f; //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    delete[] h;
}

// std::vector destination read before the stream is waited for.
float fires_vector_readback_before_wait(const float* d_in, cudaStream_t stream) {
    float* d_out;
    cudaMalloc(&d_out, BYTES);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_out, 2.0f, N);
    std::vector<float> h_out(N);
    cudaMemcpyAsync(h_out.data(), d_out, BYTES, cudaMemcpyDeviceToHost, stream); //~ pageable_async_copy
    float last = h_out[N - 1]; //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    cudaFree(d_out);
    return last;
}

// A small stack array (1 KiB: under pageable_async_copy's size threshold) read before the wait.
float fires_stack_array_readback_before_wait(cudaStream_t stream) {
    float* d_stats;
    cudaMalloc(&d_stats, 256 * sizeof(float));
    fill<<<1, 256, 0, stream>>>(d_stats, 4.0f, 256);
    float h_stats[256];
    cudaMemcpyAsync(h_stats, d_stats, sizeof(h_stats), cudaMemcpyDeviceToHost, stream);
    float first = h_stats[0]; //~ relies_on_implicit_sync
    cudaStreamSynchronize(stream);
    cudaFree(d_stats);
    return first;
}

// Driver API: cuMemcpyDtoHAsync into malloc'd memory, read before cuStreamSynchronize.
float fires_cu_memcpy_dtoh_async_into_malloc(CUstream stream) {
    CUdeviceptr d_src;
    cuMemAlloc(&d_src, BYTES);
    cuMemsetD32(d_src, 0x40000000u, N);
    float* h = static_cast<float*>(malloc(BYTES));
    cuMemcpyDtoHAsync(h, d_src, BYTES, stream); //~ pageable_async_copy
    float first = h[0]; //~ relies_on_implicit_sync
    cuStreamSynchronize(stream);
    free(h);
    cuMemFree(d_src);
    return first;
}

// The stream is waited for only when verbose: on the other path the read relies on the copy
// to pageable memory being synchronous.
float fires_pageable_readback_waited_on_one_path(const float* d_src, bool verbose,
                                                 cudaStream_t stream) {
    std::vector<float> h(N);
    cudaMemcpyAsync(h.data(), d_src, BYTES, cudaMemcpyDeviceToHost, stream); //~ pageable_async_copy
    if (verbose) {
        cudaStreamSynchronize(stream);
    }
    return h[0]; //~ relies_on_implicit_sync
}

// ---------------------------------------------------------------------------------------
// Near misses: nothing of this lint fires.
// ---------------------------------------------------------------------------------------

// The stream is synchronized before the input is freed.
void ok_stream_sync_before_free(const float* h_in, float* h_out) {
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    float* d_in;
    float* d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemcpy(d_in, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_out, 2.0f, N);
    cudaStreamSynchronize(stream);
    cudaFree(d_in);
    cudaMemcpy(h_out, d_out, BYTES, cudaMemcpyDeviceToHost);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

// A non-blocking stream, with cudaDeviceSynchronize before the free.
void ok_device_sync_before_free_non_blocking(float* h_out) {
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    float* d_in;
    float* d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    fill<<<BLOCKS, THREADS, 0, stream>>>(d_in, 1.5f, N);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_out, 2.0f, N);
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaMemcpy(h_out, d_out, BYTES, cudaMemcpyDeviceToHost);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

// An event recorded after the kernel and synchronized before the free.
void ok_event_recorded_after_kernel_synchronized(const float* h_in, float* d_out,
                                                 cudaStream_t stream) {
    cudaEvent_t done;
    cudaEventCreate(&done);
    float* d_in;
    cudaMalloc(&d_in, BYTES);
    cudaMemcpy(d_in, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_out, 2.0f, N);
    cudaEventRecord(done, stream);
    cudaEventSynchronize(done);
    cudaFree(d_in);
    cudaEventDestroy(done);
}

// The kernel runs on the legacy stream; the blocking copy back waits for it before the frees.
void ok_blocking_copy_back_before_free_legacy_stream(const float* h_in, float* h_out) {
    float* d_in;
    float* d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemcpy(d_in, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS>>>(d_in, d_out, 0.5f, N);
    cudaMemcpy(h_out, d_out, BYTES, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
}

// The kernel runs on a blocking stream; the blocking copy back on the legacy stream waits for
// it before the frees.
void ok_blocking_copy_back_before_free_blocking_stream(const float* h_in, float* h_out) {
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    float* d_in;
    float* d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemcpy(d_in, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_out, 0.5f, N);
    cudaMemcpy(h_out, d_out, BYTES, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

// cudaFreeAsync on the kernel's stream: stream-ordered, documented.
void ok_free_async_on_kernel_stream(const float* d_in, float* d_acc, cudaStream_t stream) {
    float* d_tmp;
    cudaMallocAsync(&d_tmp, BYTES, stream);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_tmp, 2.0f, N);
    accumulate<<<BLOCKS, THREADS, 0, stream>>>(d_tmp, d_acc, N);
    cudaFreeAsync(d_tmp, stream);
    cudaStreamSynchronize(stream);
}

// d_a is freed while a kernel runs, but that kernel does not use d_a; the result is read
// after an explicit wait.
void ok_free_buffer_no_pending_work_uses(const float* h_in, float* h_out, cudaStream_t stream) {
    float* d_a;
    float* d_b;
    cudaMalloc(&d_a, BYTES);
    cudaMalloc(&d_b, BYTES);
    cudaMemcpy(d_a, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_a, d_b, 2.0f, N);
    cudaStreamSynchronize(stream);
    square_inplace<<<BLOCKS, THREADS, 0, stream>>>(d_b, N);
    cudaFree(d_a);
    cudaStreamSynchronize(stream);
    cudaMemcpy(h_out, d_b, BYTES, cudaMemcpyDeviceToHost);
    cudaFree(d_b);
}

// The pinned destination of a read-back is read after cudaStreamSynchronize.
float ok_pinned_readback_read_after_stream_sync(cudaStream_t stream) {
    float* d_res;
    float* h_res;
    cudaMalloc(&d_res, BYTES);
    cudaMallocHost(&h_res, BYTES);
    fill<<<BLOCKS, THREADS, 0, stream>>>(d_res, 3.0f, N);
    cudaMemcpyAsync(h_res, d_res, BYTES, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    float first = h_res[0];
    cudaFree(d_res);
    cudaFreeHost(h_res);
    return first;
}

// A pageable destination (16 KiB) read after cudaStreamSynchronize.
float ok_pageable_readback_read_after_stream_sync(cudaStream_t stream) {
    float* d_res;
    cudaMalloc(&d_res, SMALL_BYTES);
    fill<<<SMALL_BLOCKS, THREADS, 0, stream>>>(d_res, 1.0f, SMALL);
    std::vector<float> h_res(SMALL);
    cudaMemcpyAsync(h_res.data(), d_res, SMALL_BYTES, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    float total = std::accumulate(h_res.begin(), h_res.end(), 0.0f);
    cudaFree(d_res);
    return total;
}

// A blocking cudaMemcpy into pageable memory after a kernel on the legacy stream.
float ok_blocking_memcpy_into_pageable_vector(const float* h_in) {
    float* d_in;
    float* d_out;
    cudaMalloc(&d_in, BYTES);
    cudaMalloc(&d_out, BYTES);
    cudaMemcpy(d_in, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS>>>(d_in, d_out, 2.0f, N);
    std::vector<float> h_out(N);
    cudaMemcpy(h_out.data(), d_out, BYTES, cudaMemcpyDeviceToHost);
    float last = h_out[N - 1];
    cudaFree(d_in);
    cudaFree(d_out);
    return last;
}

// cudaStreamQuery polled until the stream is done, then the free.
void ok_stream_query_polled_before_free(const float* h_in, float* d_out, cudaStream_t stream) {
    float* d_in;
    cudaMalloc(&d_in, BYTES);
    cudaMemcpy(d_in, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_out, 2.0f, N);
    while (cudaStreamQuery(stream) != cudaSuccess) {
        // spin until the kernel is done
    }
    cudaFree(d_in);
}

// The stream is synchronized on both branches; only one of them frees.
void ok_free_on_one_branch_after_sync_on_both(float* d_buf, bool release_now,
                                              cudaStream_t stream) {
    square_inplace<<<BLOCKS, THREADS, 0, stream>>>(d_buf, N);
    if (release_now) {
        cudaStreamSynchronize(stream);
        cudaFree(d_buf);
    } else {
        cudaStreamSynchronize(stream);
    }
}

// Memory from a parameter freed in a function no one calls, with no work visible.
void ok_release_parameter_without_visible_work(float* d_buf) {
    cudaFree(d_buf);
}

// The RAII scratch buffer's block waits for the stream before its destructor frees it.
void ok_raii_scratch_synchronized_before_scope_end(const float* h_in, float* h_out,
                                                   cudaStream_t stream) {
    DeviceBuffer out(BYTES);
    {
        DeviceBuffer scratch(BYTES);
        cudaMemcpy(scratch.ptr, h_in, BYTES, cudaMemcpyHostToDevice);
        scale<<<BLOCKS, THREADS, 0, stream>>>(scratch.ptr, out.ptr, 3.0f, N);
        cudaStreamSynchronize(stream);
    }
    cudaMemcpy(h_out, out.ptr, BYTES, cudaMemcpyDeviceToHost);
}

// The helper frees after the stream was synchronized.
void ok_helper_frees_after_sync(const float* h_in, float* d_acc, cudaStream_t stream) {
    float* d_tmp;
    cudaMalloc(&d_tmp, BYTES);
    cudaMemcpy(d_tmp, h_in, BYTES, cudaMemcpyHostToDevice);
    accumulate<<<BLOCKS, THREADS, 0, stream>>>(d_tmp, d_acc, N);
    cudaStreamSynchronize(stream);
    release(d_tmp);
}

// A cudaFree of other memory comes first, but the managed read waits for the stream.
float ok_managed_read_after_sync_despite_free(const float* h_in, cudaStream_t stream) {
    float* m_data;
    float* d_stage;
    cudaMallocManaged(&m_data, BYTES);
    cudaMalloc(&d_stage, BYTES);
    cudaMemcpy(d_stage, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_stage, m_data, 2.0f, N);
    cudaStreamSynchronize(stream);
    square_inplace<<<BLOCKS, THREADS, 0, stream>>>(m_data, N);
    cudaFree(d_stage);
    cudaStreamSynchronize(stream);
    float first = m_data[0];
    cudaFree(m_data);
    return first;
}

// Each round waits for its kernel before freeing its term.
void ok_loop_synchronizes_before_each_free(const float* h_terms, float* d_acc, int rounds,
                                           cudaStream_t stream) {
    for (int r = 0; r < rounds; ++r) {
        float* d_term;
        cudaMalloc(&d_term, BYTES);
        cudaMemcpy(d_term, h_terms + (size_t)r * N, BYTES, cudaMemcpyHostToDevice);
        accumulate<<<BLOCKS, THREADS, 0, stream>>>(d_term, d_acc, N);
        cudaStreamSynchronize(stream);
        cudaFree(d_term);
    }
}

// Driver API: cuStreamSynchronize before cuMemFree.
float ok_cu_mem_free_after_cu_stream_synchronize(CUstream stream) {
    CUdeviceptr d_buf;
    cuMemAlloc(&d_buf, BYTES);
    cuMemsetD32(d_buf, 0x3f800000u, N);
    void* h_pinned;
    cuMemAllocHost(&h_pinned, BYTES);
    cuMemcpyDtoHAsync(h_pinned, d_buf, BYTES, stream);
    cuStreamSynchronize(stream);
    cuMemFree(d_buf);
    float first = static_cast<float*>(h_pinned)[0];
    cuMemFreeHost(h_pinned);
    return first;
}

// Driver API: cuCtxSynchronize before cuMemFree.
void ok_cu_mem_free_after_cu_ctx_synchronize(float* h_out, CUstream stream) {
    CUdeviceptr d_buf;
    cuMemAlloc(&d_buf, BYTES);
    cuMemsetD32(d_buf, 0x40400000u, N);
    float* h_pinned;
    cudaMallocHost(&h_pinned, BYTES);
    cuMemcpyDtoHAsync(h_pinned, d_buf, BYTES, stream);
    cuCtxSynchronize();
    cuMemFree(d_buf);
    std::copy(h_pinned, h_pinned + N, h_out);
    cudaFreeHost(h_pinned);
}

// The pinned staging buffer is released after the upload was waited for.
void ok_free_host_after_upload_synchronized(float* d_dst, cudaStream_t stream) {
    float* h_stage;
    cudaMallocHost(&h_stage, BYTES);
    std::fill(h_stage, h_stage + N, 1.0f);
    cudaMemcpyAsync(d_dst, h_stage, BYTES, cudaMemcpyHostToDevice, stream);
    square_inplace<<<BLOCKS, THREADS, 0, stream>>>(d_dst, N);
    cudaStreamSynchronize(stream);
    cudaFreeHost(h_stage);
}

// The consumer stream waits on an event recorded after the producer's kernel: documented
// device-side ordering, whatever the cudaFree in between does.
void ok_consumer_waits_on_event_not_on_free(const float* h_in, float* d_out) {
    cudaStream_t producer;
    cudaStream_t consumer;
    cudaStreamCreate(&producer);
    cudaStreamCreate(&consumer);
    cudaEvent_t ready;
    cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
    float* d_mid;
    float* d_tmp;
    cudaMalloc(&d_mid, BYTES);
    cudaMalloc(&d_tmp, BYTES);
    cudaMemcpy(d_tmp, h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, producer>>>(d_tmp, d_mid, 2.0f, N);
    cudaStreamSynchronize(producer);
    square_inplace<<<BLOCKS, THREADS, 0, producer>>>(d_mid, N);
    cudaEventRecord(ready, producer);
    cudaFree(d_tmp);
    cudaStreamWaitEvent(consumer, ready, 0);
    scale<<<BLOCKS, THREADS, 0, consumer>>>(d_mid, d_out, 0.5f, N);
    cudaStreamSynchronize(consumer);
    cudaStreamSynchronize(producer);
    cudaFree(d_mid);
    cudaEventDestroy(ready);
    cudaStreamDestroy(producer);
    cudaStreamDestroy(consumer);
}

// cudaEventQuery polled until the event after the copy is reached, then the pinned read.
float ok_event_query_polled_before_pinned_read(const float* d_src, cudaStream_t stream) {
    float* h;
    cudaMallocHost(&h, BYTES);
    cudaEvent_t done;
    cudaEventCreate(&done);
    cudaMemcpyAsync(h, d_src, BYTES, cudaMemcpyDeviceToHost, stream);
    cudaEventRecord(done, stream);
    while (cudaEventQuery(done) == cudaErrorNotReady) {
        // spin until the copy is done
    }
    float first = h[0];
    cudaEventDestroy(done);
    cudaFreeHost(h);
    return first;
}

// A small stack array read after the stream was synchronized.
float ok_stack_array_readback_after_stream_sync(cudaStream_t stream) {
    float* d_stats;
    cudaMalloc(&d_stats, 256 * sizeof(float));
    fill<<<1, 256, 0, stream>>>(d_stats, 4.0f, 256);
    float h_stats[256];
    cudaMemcpyAsync(h_stats, d_stats, sizeof(h_stats), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    float first = h_stats[0];
    cudaFree(d_stats);
    return first;
}

// A `std::unique_ptr` whose deleter calls `cudaFree` runs it where the pointer ends: here, at
// the end of the function, while the kernel may still read the buffer (the deleter's `cudaFree`
// is where the finding is).
struct CudaFreeDeleter {
    void operator()(float* p) const { cudaFree(p); } //~ relies_on_implicit_sync
};
using device_floats = std::unique_ptr<float, CudaFreeDeleter>;

static device_floats make_device_floats(size_t n) {
    float* p = nullptr;
    cudaMalloc(&p, n * sizeof(float));
    return device_floats(p);
}

void fires_unique_ptr_freed_at_scope_end(const float* h_in, float* d_out, cudaStream_t stream) {
    auto d_in = make_device_floats(N);
    cudaMemcpy(d_in.get(), h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in.get(), d_out, 2.0f, N);
}

void ok_unique_ptr_after_the_stream_is_synchronized(const float* h_in, float* d_out, cudaStream_t stream) {
    auto d_in = make_device_floats(N);
    cudaMemcpy(d_in.get(), h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS, 0, stream>>>(d_in.get(), d_out, 2.0f, N);
    cudaStreamSynchronize(stream);
}

void ok_unique_ptr_released_to_the_caller(const float* h_in, float** out) {
    device_floats d_in = make_device_floats(N);
    cudaMemcpy(d_in.get(), h_in, BYTES, cudaMemcpyHostToDevice);
    scale<<<BLOCKS, THREADS>>>(d_in.get(), d_in.get(), 2.0f, N);
    *out = d_in.release();
}

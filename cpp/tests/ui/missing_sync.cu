// cuda_lint::missing_sync in the shapes real host code takes: the host reads the destination of
// an asynchronous download, or writes the source of an upload, before a wait; a wait on the
// wrong thing (an event recorded too early, cudaStreamWaitEvent, one stream of several, the
// legacy stream against a non-blocking stream, a single cudaStreamQuery); another stream using
// or freeing memory without an event. Near-misses: the waits that do cover the work, polling,
// reading the source of an upload in flight, pageable memory (the call returns once it is
// staged or done), the other half of a double buffer, stream order on one stream.
// Lines that must be reported end with `//~ lint_name`; ok_* functions stay silent.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cuda.h>

#define CHECK(x)                                                                    \
    do {                                                                            \
        cudaError_t e = (x);                                                        \
        if (e != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

__global__ void produce(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)i;
}

__global__ void consume(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + 1.0f;
}

static void do_cpu_work(void) {}

static void launch_and_download(float* h, float* d, int n, cudaStream_t s) {
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
}

static void finish(cudaStream_t s) {
    cudaStreamSynchronize(s);
}

// ---------------------------------------------------------------------------------------------
// fires_*: host access to memory that work still in flight uses, with no wait on some path.

// A successful status says the copy was enqueued, not that it is done.
int fires_read_after_checking_the_copy_status(int n, float* out) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaError_t err = cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    if (err != cudaSuccess) return -1;
    *out = h[0]; //~ missing_sync
    cudaStreamSynchronize(s);
    return 0;
}

// The same with the error-checking macro and cudaGetLastError.
float fires_checked_copy_without_a_wait(int n) {
    float *h, *d;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocHost(&h, n * sizeof(float)));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaGetLastError());
    return h[0]; //~ missing_sync
}

// cudaMemcpyAsync with the stream argument left to its default (the null stream) is still async.
float fires_default_stream_download_read_at_once(int n) {
    float *h, *d;
    cudaMallocHost((void**)&h, n * sizeof(float));
    cudaMalloc((void**)&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256>>>(d, n);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    float first = h[0]; //~ missing_sync
    cudaDeviceSynchronize();
    return first;
}

// The per-chunk pipeline that consumes each chunk right after issuing it.
float fires_pipeline_reads_each_chunk_right_after_issuing(int n, int nstreams) {
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaStream_t streams[8];
    for (int i = 0; i < nstreams; ++i) cudaStreamCreate(&streams[i]);
    int chunk = n / nstreams;
    float total = 0.0f;
    for (int i = 0; i < nstreams; ++i) {
        int off = i * chunk;
        produce<<<(chunk + 255) / 256, 256, 0, streams[i]>>>(d + off, chunk);
        cudaMemcpyAsync(h + off, d + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]);
        total += h[off]; //~ missing_sync
    }
    for (int i = 0; i < nstreams; ++i) cudaStreamSynchronize(streams[i]);
    return total;
}

// The pinned staging buffer refilled for the next batch while the last upload still reads it
// (cudarc #340: corrupted every time at N=10000).
void fires_pinned_upload_buffer_refilled_before_the_copy_is_done(int n, int batches) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    for (int b = 0; b < batches; ++b) {
        for (int i = 0; i < n; ++i) h[i] = (float)(b + i); //~ missing_sync
        cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
        scale<<<(n + 255) / 256, 256, 0, s>>>(d, 2.0f, n);
    }
    cudaStreamSynchronize(s);
}

// Double buffering with the wait forgotten: the half refilled may still be uploading.
void fires_double_buffer_refills_the_half_in_flight(int n, int batches) {
    float* h[2];
    float* d[2];
    cudaStream_t s[2];
    for (int i = 0; i < 2; ++i) {
        cudaMallocHost(&h[i], n * sizeof(float));
        cudaMalloc(&d[i], n * sizeof(float));
        cudaStreamCreate(&s[i]);
    }
    for (int b = 0; b < batches; ++b) {
        int cur = b % 2;
        for (int i = 0; i < n; ++i) h[cur][i] = (float)b; //~ missing_sync
        cudaMemcpyAsync(d[cur], h[cur], n * sizeof(float), cudaMemcpyHostToDevice, s[cur]);
        scale<<<(n + 255) / 256, 256, 0, s[cur]>>>(d[cur], 2.0f, n);
    }
    cudaDeviceSynchronize();
}

// The event is recorded before the copy is enqueued, so waiting for it waits for nothing.
float fires_event_recorded_before_the_copy(int n) {
    float *h, *d;
    cudaStream_t s;
    cudaEvent_t ev;
    cudaStreamCreate(&s);
    cudaEventCreate(&ev);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaEventRecord(ev, s);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaEventSynchronize(ev);
    return h[0]; //~ missing_sync
}

// cudaStreamWaitEvent orders another stream, not the host.
float fires_stream_wait_event_does_not_block_the_host(int n) {
    float *h, *d;
    cudaStream_t a, b;
    cudaEvent_t ev;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, a);
    cudaEventRecord(ev, a);
    cudaStreamWaitEvent(b, ev, 0);
    return h[0]; //~ missing_sync
}

// A blocking cudaMemcpy runs on the legacy stream, which does not wait for a non-blocking stream.
float fires_blocking_copy_does_not_wait_for_a_non_blocking_stream(int n) {
    float *h_out, *h_stats, *d_out, *d_stats;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMallocHost(&h_out, n * sizeof(float));
    cudaMallocHost(&h_stats, 4 * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMalloc(&d_stats, 4 * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d_out, n);
    cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaMemcpy(h_stats, d_stats, 4 * sizeof(float), cudaMemcpyDeviceToHost);
    return h_out[0] + h_stats[0]; //~ missing_sync
}

// Copy stream and compute stream: the kernel reads the buffer the upload still writes.
void fires_kernel_on_another_stream_without_an_event(int n) {
    float *h, *d_in, *d_out;
    cudaStream_t copy_stream, compute_stream;
    cudaStreamCreate(&copy_stream);
    cudaStreamCreate(&compute_stream);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpyAsync(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice, copy_stream);
    consume<<<(n + 255) / 256, 256, 0, compute_stream>>>(d_in, d_out, n); //~ missing_sync
    cudaDeviceSynchronize();
}

// Freed in the order of the stream that allocated it, while the compute stream still writes it
// (cuda-oxide #619, cutile-rs #252).
void fires_free_on_the_allocation_stream_while_compute_uses_it(int n) {
    float* d;
    cudaStream_t alloc_stream, compute_stream;
    cudaStreamCreateWithFlags(&alloc_stream, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking);
    cudaMallocAsync((void**)&d, n * sizeof(float), alloc_stream);
    cudaStreamSynchronize(alloc_stream);
    produce<<<(n + 255) / 256, 256, 0, compute_stream>>>(d, n);
    cudaFreeAsync(d, alloc_stream); //~ missing_sync
    cudaDeviceSynchronize();
}

// Managed memory written by a kernel, read by the host before the kernel is done.
float fires_managed_result_read_while_the_kernel_writes_it(int n) {
    float* m;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocManaged(&m, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(m, n);
    float first = m[0]; //~ missing_sync
    cudaStreamSynchronize(s);
    cudaFree(m);
    return first;
}

// A vector page-locked in place is pinned: its upload is truly asynchronous.
void fires_registered_vector_written_while_the_upload_runs(int n) {
    std::vector<float> v(n, 1.0f);
    float* d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&d, n * sizeof(float));
    cudaHostRegister(v.data(), n * sizeof(float), cudaHostRegisterDefault);
    cudaMemcpyAsync(d, v.data(), n * sizeof(float), cudaMemcpyHostToDevice, s);
    v[0] = 0.0f; //~ missing_sync
    cudaStreamSynchronize(s);
    cudaHostUnregister(v.data());
}

// A helper enqueues the kernel and the download; the caller uses the result at once.
float fires_helper_enqueues_and_the_caller_reads(int n) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    launch_and_download(h, d, n, s);
    return h[n - 1]; //~ missing_sync
}

// Only the last chunk's stream is synchronized; chunk 0 went on another stream.
// Known problem, not found yet: a collection of streams counts as one stream, so syncing its last element counts as syncing all (LINTS.md)
float known_miss_only_the_last_stream_is_synchronized(int n, int nstreams) {
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaStream_t streams[8];
    for (int i = 0; i < nstreams; ++i) cudaStreamCreate(&streams[i]);
    int chunk = n / nstreams;
    for (int i = 0; i < nstreams; ++i) {
        int off = i * chunk;
        cudaMemcpyAsync(h + off, d + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]);
    }
    cudaStreamSynchronize(streams[nstreams - 1]);
    return h[0];
}

// One cudaStreamQuery, not a polling loop: on the "not ready" path the read races.
float fires_single_query_is_not_a_wait(int n) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    if (cudaStreamQuery(s) == cudaErrorNotReady) {
        printf("copy still running\n");
    }
    return h[0]; //~ missing_sync
}

// An image downloaded with a 2D copy into pinned memory, read before the wait.
unsigned char fires_pitched_2d_download_read_before_the_wait(int width, int height, cudaStream_t s) {
    unsigned char *h_img, *d_img;
    size_t pitch;
    cudaMallocHost((void**)&h_img, width * height);
    cudaMallocPitch((void**)&d_img, &pitch, width, height);
    cudaMemcpy2DAsync(h_img, width, d_img, pitch, width, height, cudaMemcpyDeviceToHost, s);
    unsigned char corner = h_img[0]; //~ missing_sync
    cudaStreamSynchronize(s);
    return corner;
}

// ---------------------------------------------------------------------------------------------
// ok_*: the access is ordered after the work, or the work does not conflict with it.

// The status checked, then the wait, then the read.
int ok_status_checked_then_waited(int n, float* out) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaError_t err = cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    if (err != cudaSuccess) return -1;
    err = cudaStreamSynchronize(s);
    if (err != cudaSuccess) return -1;
    *out = h[0];
    return 0;
}

// The macro around the wait too.
float ok_checked_copy_and_wait(int n) {
    float *h, *d;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocHost(&h, n * sizeof(float)));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    CHECK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    return h[0];
}

// The null-stream download followed by the device-wide wait.
float ok_default_stream_download_then_device_synchronize(int n) {
    float *h, *d;
    cudaMallocHost((void**)&h, n * sizeof(float));
    cudaMalloc((void**)&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256>>>(d, n);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaDeviceSynchronize();
    return h[0];
}

// The pipeline consumes the chunks after every stream is synchronized.
float ok_pipeline_reads_after_every_stream_is_synchronized(int n, int nstreams) {
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaStream_t streams[8];
    for (int i = 0; i < nstreams; ++i) cudaStreamCreate(&streams[i]);
    int chunk = n / nstreams;
    for (int i = 0; i < nstreams; ++i) {
        int off = i * chunk;
        produce<<<(chunk + 255) / 256, 256, 0, streams[i]>>>(d + off, chunk);
        cudaMemcpyAsync(h + off, d + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]);
    }
    for (int i = 0; i < nstreams; ++i) cudaStreamSynchronize(streams[i]);
    float total = 0.0f;
    for (int i = 0; i < nstreams; ++i) total += h[i * chunk];
    return total;
}

// The staging buffer refilled only after the stream drained.
void ok_pinned_upload_buffer_refilled_after_a_wait(int n, int batches) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    for (int b = 0; b < batches; ++b) {
        cudaStreamSynchronize(s);
        for (int i = 0; i < n; ++i) h[i] = (float)(b + i);
        cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
        scale<<<(n + 255) / 256, 256, 0, s>>>(d, 2.0f, n);
    }
    cudaStreamSynchronize(s);
}

// Double buffering done right: wait for the half about to be refilled.
void ok_double_buffer_waits_for_the_half_it_refills(int n, int batches) {
    float* h[2];
    float* d[2];
    cudaStream_t s[2];
    for (int i = 0; i < 2; ++i) {
        cudaMallocHost(&h[i], n * sizeof(float));
        cudaMalloc(&d[i], n * sizeof(float));
        cudaStreamCreate(&s[i]);
    }
    for (int b = 0; b < batches; ++b) {
        int cur = b % 2;
        cudaStreamSynchronize(s[cur]);
        for (int i = 0; i < n; ++i) h[cur][i] = (float)b;
        cudaMemcpyAsync(d[cur], h[cur], n * sizeof(float), cudaMemcpyHostToDevice, s[cur]);
        scale<<<(n + 255) / 256, 256, 0, s[cur]>>>(d[cur], 2.0f, n);
    }
    cudaDeviceSynchronize();
}

// Ping and pong as two named buffers: the host fills pong while ping uploads.
void ok_host_fills_the_other_half_while_one_uploads(int n) {
    float *ping, *pong, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&ping, n * sizeof(float));
    cudaMallocHost(&pong, n * sizeof(float));
    cudaMalloc(&d, 2 * n * sizeof(float));
    cudaMemcpyAsync(d, ping, n * sizeof(float), cudaMemcpyHostToDevice, s);
    for (int i = 0; i < n; ++i) pong[i] = (float)i;
    cudaMemcpyAsync(d + n, pong, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

// Reading the source of an upload in flight is not a conflict: the copy only reads it too.
float ok_host_reads_the_source_of_an_upload_in_flight(int n) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = 1.0f;
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    float checksum = 0.0f;
    for (int i = 0; i < n; ++i) checksum += h[i];
    cudaStreamSynchronize(s);
    return checksum;
}

// The event recorded after the copy, and waited for.
float ok_event_recorded_after_the_copy(int n) {
    float *h, *d;
    cudaStream_t s;
    cudaEvent_t ev;
    cudaStreamCreate(&s);
    cudaEventCreate(&ev);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaEventRecord(ev, s);
    cudaEventSynchronize(ev);
    return h[0];
}

// A blocking cudaMemcpy waits for the work of blocking streams (the legacy stream's implicit
// synchronization), and the host waits for the blocking copy.
float ok_blocking_copy_waits_for_a_blocking_stream(int n) {
    float *h_out, *h_stats, *d_out, *d_stats;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h_out, n * sizeof(float));
    cudaMallocHost(&h_stats, 4 * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMalloc(&d_stats, 4 * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d_out, n);
    cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaMemcpy(h_stats, d_stats, 4 * sizeof(float), cudaMemcpyDeviceToHost);
    return h_out[0] + h_stats[0];
}

// Copy stream and compute stream ordered by an event.
float ok_kernel_on_another_stream_after_stream_wait_event(int n) {
    float *h, *d_in, *d_out;
    cudaStream_t copy_stream, compute_stream;
    cudaEvent_t uploaded;
    cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpyAsync(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice, copy_stream);
    cudaEventRecord(uploaded, copy_stream);
    cudaStreamWaitEvent(compute_stream, uploaded, 0);
    consume<<<(n + 255) / 256, 256, 0, compute_stream>>>(d_in, d_out, n);
    cudaMemcpyAsync(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, compute_stream);
    cudaStreamSynchronize(compute_stream);
    return h[0];
}

// The stream-ordered free made to wait for the compute stream first.
void ok_free_on_the_allocation_stream_after_an_event(int n) {
    float* d;
    cudaStream_t alloc_stream, compute_stream;
    cudaEvent_t done;
    cudaStreamCreateWithFlags(&alloc_stream, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking);
    cudaEventCreate(&done);
    cudaMallocAsync((void**)&d, n * sizeof(float), alloc_stream);
    cudaStreamSynchronize(alloc_stream);
    produce<<<(n + 255) / 256, 256, 0, compute_stream>>>(d, n);
    cudaEventRecord(done, compute_stream);
    cudaStreamWaitEvent(alloc_stream, done, 0);
    cudaFreeAsync(d, alloc_stream);
    cudaStreamSynchronize(alloc_stream);
}

// Polling the stream until it is done, doing host work meanwhile (cuda-samples asyncAPI).
float ok_poll_the_stream_until_it_is_done(int n) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    while (cudaStreamQuery(s) == cudaErrorNotReady) {
        do_cpu_work();
    }
    return h[0];
}

// Pageable memory: the upload returns once the data is staged, so the host may reuse the
// buffer at once (only the copy's speed is reported).
void ok_pageable_upload_buffer_reused_right_after_the_call(int n, cudaStream_t s) {
    float* h = (float*)malloc(n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = 1.0f;
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    for (int i = 0; i < n; ++i) h[i] = 2.0f;
    cudaStreamSynchronize(s);
    free(h);
}

// Pageable memory: the download returns once the copy is done, so no race (that the driver
// copies to pageable memory synchronously is what `relies_on_implicit_sync` points out).
float ok_pageable_download_read_right_after_the_call(int n, cudaStream_t s) {
    std::vector<float> out(n);
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaMemcpyAsync(out.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s); //~ pageable_async_copy
    return out[0]; //~ relies_on_implicit_sync
}

// Managed memory read after its stream is synchronized.
float ok_managed_result_read_after_stream_synchronize(int n) {
    float* m;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocManaged(&m, n * sizeof(float));
    produce<<<(n + 255) / 256, 256, 0, s>>>(m, n);
    cudaStreamSynchronize(s);
    float first = m[0];
    cudaFree(m);
    return first;
}

// The helper enqueues, another helper waits, then the caller reads.
float ok_helper_enqueues_and_another_helper_waits(int n) {
    float *h, *d;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    launch_and_download(h, d, n, s);
    finish(s);
    return h[n - 1];
}

// Stream order on one stream: the kernel after the upload needs no event.
float ok_same_stream_orders_copy_kernel_copy(int n) {
    float *h, *d_in, *d_out;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpyAsync(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    consume<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);
    cudaMemcpyAsync(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    return h[0];
}

// A kernel started through the API with its arguments in an array (cooperative launches).
__global__ void grid_reduce(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, in[i]);
}

float fires_read_after_a_cooperative_launch(const float* d_in, int n, cudaStream_t s) {
    float* total;
    cudaMallocManaged(&total, sizeof(float));
    void* args[] = {(void*)&d_in, (void*)&total, (void*)&n};
    cudaLaunchCooperativeKernel((void*)grid_reduce, dim3(64), dim3(256), args, 0, s);
    return *total; //~ missing_sync
}

float ok_read_after_a_cooperative_launch_and_a_sync(const float* d_in, int n, cudaStream_t s) {
    float* total;
    cudaMallocManaged(&total, sizeof(float));
    void* args[] = {(void*)&d_in, (void*)&total, (void*)&n};
    cudaLaunchCooperativeKernel((void*)grid_reduce, dim3(64), dim3(256), args, 0, s);
    cudaStreamSynchronize(s);
    return *total;
}

// cudaLaunchKernelEx (CUDA 12): the stream is the configuration's, the arguments as written.
float fires_read_after_a_launch_through_a_config(float* m, int n, cudaStream_t s) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((n + 255) / 256);
    config.blockDim = dim3(256);
    config.stream = s;
    cudaMallocManaged(&m, n * sizeof(float));
    cudaLaunchKernelEx(&config, grid_reduce, (const float*)m, m, n);
    return m[0]; //~ missing_sync
}

float ok_read_after_a_launch_through_a_config_and_its_stream_synchronized(float* m, int n, cudaStream_t s) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((n + 255) / 256);
    config.blockDim = dim3(256);
    config.stream = s;
    cudaMallocManaged(&m, n * sizeof(float));
    cudaLaunchKernelEx(&config, grid_reduce, (const float*)m, m, n);
    cudaStreamSynchronize(s);
    return m[0];
}

// cuLaunchKernel: a kernel from a module (its source is not here), arguments in an array. Whether
// it writes `d` is not seen: `unverified`'s, not reported by default.
float unverified_read_after_a_driver_launch(CUfunction f, CUstream s, int n) {
    CUdeviceptr d;
    cuMemAllocManaged(&d, n * sizeof(float), CU_MEM_ATTACH_GLOBAL);
    void* params[] = {&d, &n};
    cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, params, nullptr);
    return ((float*)d)[0];
}

float ok_read_after_a_driver_launch_and_a_context_sync(CUfunction f, CUstream s, int n) {
    CUdeviceptr d;
    cuMemAllocManaged(&d, n * sizeof(float), CU_MEM_ATTACH_GLOBAL);
    void* params[] = {&d, &n};
    cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, params, nullptr);
    cuCtxSynchronize();
    return ((float*)d)[0];
}

// The wait loop calls a helper of the file that waits: the loop waits, as if written out.
static void wait_for(cudaStream_t s) { cudaStreamSynchronize(s); }

float ok_pipeline_waits_through_a_helper(const float* d, int n, int nstreams) {
    cudaStream_t streams[8];
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    for (int i = 0; i < nstreams; ++i) cudaStreamCreate(&streams[i]);
    int chunk = n / nstreams;
    for (int i = 0; i < nstreams; ++i)
        cudaMemcpyAsync(h + i * chunk, d + i * chunk, chunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]);
    for (int i = 0; i < nstreams; ++i) wait_for(streams[i]);
    return h[0];
}

// The wait loop waits only on its first round: the other chunks may still be copying.
float fires_pipeline_waits_only_on_one_round(const float* d, int n, int nstreams) {
    cudaStream_t streams[8];
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    for (int i = 0; i < nstreams; ++i) cudaStreamCreate(&streams[i]);
    int chunk = n / nstreams;
    for (int i = 0; i < nstreams; ++i)
        cudaMemcpyAsync(h + i * chunk, d + i * chunk, chunk * sizeof(float), cudaMemcpyDeviceToHost, streams[i]);
    for (int i = 0; i < nstreams; ++i) {
        if (i == 0) cudaStreamSynchronize(streams[i]);
    }
    return h[0]; //~ missing_sync
}

// A stream's flags through a macro: non-blocking, so waiting on the legacy stream does not wait
// for it.
#define WORKER_STREAM_FLAGS cudaStreamNonBlocking
float fires_legacy_wait_for_a_non_blocking_stream_named_by_a_macro(const float* d, int n) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, WORKER_STREAM_FLAGS);
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(0);
    return h[0]; //~ missing_sync
}

// A kernel that uses a struct parameter only through its fields uses the memory those fields
// hold: two kernels writing different fields on two streams do not race; the same field does.
struct Buffers {
    int* first;
    int* second;
};

__global__ void write_first(Buffers b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b.first[i] = i;
}

__global__ void write_second(Buffers b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b.second[i] = i;
}

__global__ void write_second_through(Buffers* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b->second[i] = 2 * i;
}

void ok_kernels_write_different_fields_on_two_streams(int n) {
    Buffers b;
    cudaMalloc(&b.first, n * sizeof(int));
    cudaMalloc(&b.second, n * sizeof(int));
    cudaStream_t s1, s2;
    cudaStreamCreate(&s1);
    cudaStreamCreate(&s2);
    write_first<<<1, 256, 0, s1>>>(b, n);
    write_second<<<1, 256, 0, s2>>>(b, n);
    cudaDeviceSynchronize();
}

void fires_kernels_write_the_same_field_on_two_streams(int n) {
    Buffers b;
    cudaMalloc(&b.first, n * sizeof(int));
    cudaMalloc(&b.second, n * sizeof(int));
    cudaStream_t s1, s2;
    cudaStreamCreate(&s1);
    cudaStreamCreate(&s2);
    write_second<<<1, 256, 0, s1>>>(b, n);
    write_second<<<1, 256, 0, s2>>>(b, n); //~ missing_sync
    cudaDeviceSynchronize();
}

void ok_kernels_read_a_pinned_struct_and_write_different_fields(int n) {
    Buffers* b;
    cudaMallocHost(&b, sizeof(Buffers));
    cudaMalloc(&b->first, n * sizeof(int));
    cudaMalloc(&b->second, n * sizeof(int));
    cudaStream_t s1, s2;
    cudaStreamCreate(&s1);
    cudaStreamCreate(&s2);
    write_first<<<1, 256, 0, s1>>>(*b, n);
    write_second_through<<<1, 256, 0, s2>>>(b, n);
    cudaDeviceSynchronize();
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

__global__ void count_system(int* counters, int n) {
    for (int i = 0; i < n; ++i) atomicAdd_system(&counters[i % 4], 1);
}

__global__ void count_and_store(int* counters, int n) {
    atomicAdd_system(&counters[0], n);
    counters[1] = n;
}

// Memory a kernel touches only through system-scope atomics is shared with the host by design.
int ok_host_atomics_beside_system_atomics(cudaStream_t s) {
    int* counters;
    cudaMallocHost(&counters, 4 * sizeof(int));
    count_system<<<1, 32, 0, s>>>(counters, 1024);
    int seen = __sync_fetch_and_add(&counters[0], 10);
    seen += counters[1];
    cudaStreamSynchronize(s);
    return seen;
}

// A plain store beside the atomics: the host's read races it.
int host_reads_what_a_kernel_also_stores(cudaStream_t s) {
    int* counters;
    cudaMallocHost(&counters, 4 * sizeof(int));
    count_and_store<<<1, 32, 0, s>>>(counters, 1024);
    int seen = counters[1]; //~ missing_sync
    cudaStreamSynchronize(s);
    return seen;
}

// A method that says success with `true`: after `if (!..init()) return`, the path goes on from
// the method's successful returns, and what it enqueued is still running there.
class Readback {
public:
    bool init(int n) {
        n_ = n;
        if (cudaStreamCreate(&s_) != cudaSuccess) return false;
        if (cudaMallocHost(&h_, n * sizeof(float)) != cudaSuccess) return false;
        if (cudaMalloc(&d_, n * sizeof(float)) != cudaSuccess) return false;
        produce<<<(n + 255) / 256, 256, 0, s_>>>(d_, n);
        cudaMemcpyAsync(h_, d_, n * sizeof(float), cudaMemcpyDeviceToHost, s_);
        return true;
    }
    float* h_ = nullptr;
    float* d_ = nullptr;
    cudaStream_t s_;
    int n_ = 0;
};

float fires_read_after_a_bool_init_succeeded(int n) {
    Readback r;
    if (!r.init(n)) {
        return 0.0f;
    }
    return r.h_[0]; //~ missing_sync
}

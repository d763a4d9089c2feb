// Headers the project includes with `#include "..."` are part of the file: their classes and
// helpers run where the file uses them, and labels point into the header where the code is.
// Lines that must be reported end with an annotation; ok_* functions stay silent.
#include "includes_header/staging.cuh"
#include "includes_header/staging.cuh"

float fires_read_before_the_wait() {
    Staging s(1024);
    s.download();
    return s.host()[0]; //~ missing_sync
}

float ok_read_after_the_wait() {
    Staging s(1024);
    s.download();
    s.wait();
    return s.host()[0];
}

float fires_helper_memory_read_on_the_host() {
    float* d = make_device(16);
    return d[0]; //~ host_deref_device_ptr
}

void fires_release_of_the_header_helper_memory() {
    float* d = make_device(16);
    cudaFreeHost(d); //~ mismatched_free
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

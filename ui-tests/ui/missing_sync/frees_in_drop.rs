// A buffer freed by work not ordered after its last use, where the free is not a call in the
// function: a crate's own `Drop` impl (freeing on a "deallocator" stream, as cutile-rs's
// `DeviceBox` did, real-bugs R6/R7), run where the value goes out of scope or by `drop(x)`, and
// a buffer held in a field of a struct that is dropped. The `Drop` body is followed like a call.
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUfunction, CUstream};
use cudarc::runtime::sys as rt;

const BYTES: usize = 1 << 22;

unsafe fn stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { sys::cuStreamCreate(&mut s, 1) };
    s
}

unsafe fn launch(f: CUfunction, s: CUstream, d: &mut CUdeviceptr) {
    let mut args = [d as *mut CUdeviceptr as *mut c_void];
    unsafe { sys::cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s, args.as_mut_ptr(), null_mut()) };
}

/// A crate's device buffer, freed on the stream it was given to free on.
struct DeviceBox {
    ptr: CUdeviceptr,
    dealloc: CUstream,
}

impl DeviceBox {
    fn new(bytes: usize, dealloc: CUstream) -> Self {
        let mut ptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) };
        DeviceBox { ptr, dealloc }
    }
}

impl Drop for DeviceBox {
    fn drop(&mut self) {
        unsafe { sys::cuMemFreeAsync(self.ptr, self.dealloc) };
    }
}

/// The fix cutile-rs made: the free waits for the stream that last used the buffer.
struct OrderedBox {
    ptr: CUdeviceptr,
    last_use: CUstream,
    dealloc: CUstream,
}

impl Drop for OrderedBox {
    fn drop(&mut self) {
        unsafe {
            let mut done: CUevent = null_mut();
            sys::cuEventCreate(&mut done, 0);
            sys::cuEventRecord(done, self.last_use);
            sys::cuStreamWaitEvent(self.dealloc, done, 0);
            sys::cuMemFreeAsync(self.ptr, self.dealloc);
        }
    }
}

/// A buffer freed by `cuMemFree_v2`, which synchronizes the device today: no race, but an
/// undocumented wait (`relies_on_implicit_sync`'s subject, allowed where it is used here).
struct BlockingBox {
    ptr: CUdeviceptr,
}

impl Drop for BlockingBox {
    fn drop(&mut self) {
        unsafe { sys::cuMemFree_v2(self.ptr) };
    }
}

/// A layer that owns its buffers through the crate's own type.
struct Layer {
    weights: DeviceBox,
    name: String,
}

/// The runtime API's flavour: `cudaFreeAsync` on the stream the pool was made for.
struct PoolBuffer {
    ptr: *mut c_void,
    stream: rt::cudaStream_t,
}

impl Drop for PoolBuffer {
    fn drop(&mut self) {
        unsafe { rt::cudaFreeAsync(self.ptr, self.stream) };
    }
}

unsafe fn rt_stream() -> rt::cudaStream_t {
    let mut s: rt::cudaStream_t = null_mut();
    unsafe { rt::cudaStreamCreateWithFlags(&mut s, 1) };
    s
}

fn fires_dropped_at_scope_end_on_the_deallocator_stream(f: CUfunction) {
    unsafe {
        let compute = stream();
        let dealloc = stream();
        let mut buf = DeviceBox::new(BYTES, dealloc);
        launch(f, compute, &mut buf.ptr);
    }
    //~^ missing_sync
}

fn fires_explicit_drop_before_the_wait(f: CUfunction) {
    unsafe {
        let compute = stream();
        let dealloc = stream();
        let mut buf = DeviceBox::new(BYTES, dealloc);
        launch(f, compute, &mut buf.ptr);
        drop(buf);
        //~^ missing_sync
        sys::cuStreamSynchronize(compute);
    }
}

fn fires_struct_field_dropped_with_its_owner(f: CUfunction) {
    unsafe {
        let compute = stream();
        let dealloc = stream();
        let mut layer = Layer {
            weights: DeviceBox::new(BYTES, dealloc),
            name: String::from("fc1"),
        };
        launch(f, compute, &mut layer.weights.ptr);
        println!("{}", layer.name);
        drop(layer);
        //~^ missing_sync
    }
}

fn fires_replaced_in_a_loop_while_the_kernel_reads_it(f: CUfunction, steps: usize) {
    unsafe {
        let compute = stream();
        let dealloc = stream();
        let mut scratch = DeviceBox::new(BYTES, dealloc);
        for _ in 0..steps {
            launch(f, compute, &mut scratch.ptr);
            // Assigning drops the old buffer first.
            scratch = DeviceBox::new(BYTES, dealloc);
            //~^ missing_sync
        }
        sys::cuStreamSynchronize(compute);
    }
}

fn fires_runtime_pool_buffer_freed_on_its_stream_while_another_copies(host: &[f32]) {
    unsafe {
        let upload = rt_stream();
        let pool = rt_stream();
        let mut ptr: *mut c_void = null_mut();
        rt::cudaMallocAsync(&mut ptr, BYTES, pool);
        rt::cudaStreamSynchronize(pool);
        let buf = PoolBuffer { ptr, stream: pool };
        rt::cudaMemcpyAsync(
            buf.ptr,
            host.as_ptr() as *const c_void,
            BYTES,
            rt::cudaMemcpyKind::cudaMemcpyHostToDevice,
            upload,
        );
        drop(buf);
        //~^ missing_sync
    }
}

fn ok_dropped_after_the_compute_stream_finished(f: CUfunction) {
    unsafe {
        let compute = stream();
        let dealloc = stream();
        let mut buf = DeviceBox::new(BYTES, dealloc);
        launch(f, compute, &mut buf.ptr);
        sys::cuStreamSynchronize(compute);
        drop(buf);
    }
}

fn ok_freed_on_the_stream_that_used_it(f: CUfunction) {
    unsafe {
        let compute = stream();
        let mut buf = DeviceBox::new(BYTES, compute);
        launch(f, compute, &mut buf.ptr);
    }
}

fn ok_drop_impl_orders_the_free_after_the_last_use(f: CUfunction) {
    unsafe {
        let compute = stream();
        let dealloc = stream();
        let mut ptr = 0;
        sys::cuMemAlloc_v2(&mut ptr, BYTES);
        let mut buf = OrderedBox {
            ptr,
            last_use: compute,
            dealloc,
        };
        launch(f, compute, &mut buf.ptr);
    }
}

#[cfg_attr(cuda_lint, allow(cuda_lint::relies_on_implicit_sync))] // another lint's subject
fn ok_blocking_free_in_drop(f: CUfunction) {
    unsafe {
        let compute = stream();
        let mut ptr = 0;
        sys::cuMemAlloc_v2(&mut ptr, BYTES);
        let mut buf = BlockingBox { ptr };
        launch(f, compute, &mut buf.ptr);
    }
}

fn ok_struct_dropped_after_the_wait(f: CUfunction) {
    unsafe {
        let compute = stream();
        let dealloc = stream();
        let mut layer = Layer {
            weights: DeviceBox::new(BYTES, dealloc),
            name: String::from("fc1"),
        };
        launch(f, compute, &mut layer.weights.ptr);
        sys::cuStreamSynchronize(compute);
        drop(layer);
    }
}

fn ok_replaced_in_a_loop_after_each_step_finished(f: CUfunction, steps: usize) {
    unsafe {
        let compute = stream();
        let dealloc = stream();
        let mut scratch = DeviceBox::new(BYTES, dealloc);
        for _ in 0..steps {
            launch(f, compute, &mut scratch.ptr);
            sys::cuStreamSynchronize(compute);
            scratch = DeviceBox::new(BYTES, dealloc);
        }
    }
}

fn ok_runtime_pool_buffer_freed_after_the_upload_stream_joined(host: &[f32]) {
    unsafe {
        let upload = rt_stream();
        let pool = rt_stream();
        let mut ptr: *mut c_void = null_mut();
        rt::cudaMallocAsync(&mut ptr, BYTES, pool);
        rt::cudaStreamSynchronize(pool);
        let buf = PoolBuffer { ptr, stream: pool };
        rt::cudaMemcpyAsync(
            buf.ptr,
            host.as_ptr() as *const c_void,
            BYTES,
            rt::cudaMemcpyKind::cudaMemcpyHostToDevice,
            upload,
        );
        let mut copied: rt::cudaEvent_t = null_mut();
        rt::cudaEventCreate(&mut copied);
        rt::cudaEventRecord(copied, upload);
        rt::cudaStreamWaitEvent(pool, copied, 0);
        drop(buf);
    }
}

fn ok_never_used_on_another_stream() {
    unsafe {
        let dealloc = stream();
        let buf = DeviceBox::new(BYTES, dealloc);
        sys::cuMemsetD8Async(buf.ptr, 0, BYTES, dealloc);
    }
}

fn main() {}

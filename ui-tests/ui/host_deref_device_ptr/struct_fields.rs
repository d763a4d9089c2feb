#![cfg_attr(cuda_lint, allow(cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use cuda_lint_runtime::{Context, DeviceBuffer, DevicePtr, Error, LaunchConfig, ManagedBuffer, PinnedFlags, Stream};

/// A view of device memory passed around by value.
#[derive(Clone, Copy, Debug)]
struct DeviceView {
    ptr: DevicePtr,
    len: usize,
}

impl DeviceView {
    fn of(dev: &DeviceBuffer<f32>) -> DeviceView {
        DeviceView { ptr: dev.device_ptr(), len: dev.len() }
    }

    /// Reads element `i` on the host: wrong for any `DeviceView`.
    fn fires_get(&self, i: usize) -> f32 {
        unsafe { *(self.ptr.as_raw() as *const f32).add(i) }
        //~^ host_deref_device_ptr
    }

    fn end(&self) -> DevicePtr {
        self.ptr.offset_bytes(self.len * 4)
    }
}

/// A raw pointer field filled from a device buffer.
struct RawTensor {
    data: *mut f32,
    shape: [usize; 2],
}

struct Layer {
    weights: DeviceView,
    bias: DeviceView,
}

struct HostMirror {
    ptr: *const f32,
    len: usize,
}

fn fires_device_ptr_field(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(32)?;
    let v = DeviceView { ptr: dev.device_ptr(), len: 32 };
    let last = unsafe { *(v.ptr.as_raw() as *const f32).add(v.len - 1) };
    //~^ host_deref_device_ptr
    Ok(last)
}

fn fires_raw_ptr_field_write(ctx: &Context) -> Result<(), Error> {
    let dev = ctx.alloc::<f32>(6)?;
    let t = RawTensor { data: dev.device_ptr().as_raw() as *mut f32, shape: [2, 3] };
    unsafe { *t.data.add(t.shape[1]) = 0.0 };
    //~^ host_deref_device_ptr
    Ok(())
}

/// Not a case of its own: `DeviceView::fires_get` is flagged where it dereferences, once.
fn calls_flagged_method(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(32)?;
    let v = DeviceView::of(&dev);
    let x = v.fires_get(3);
    Ok(x)
}

fn fires_view_built_by_constructor(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(32)?;
    let v = DeviceView::of(&dev);
    let p = v.ptr.as_raw() as *const f32;
    Ok(unsafe { *p })
    //~^ host_deref_device_ptr
}

fn fires_nested_field(layer: &Layer) -> f32 {
    unsafe { *(layer.bias.ptr.as_raw() as *const f32) }
    //~^ host_deref_device_ptr
}

fn fires_slice_of_struct_field(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(32)?;
    let t = RawTensor { data: dev.device_ptr().as_raw() as *mut f32, shape: [4, 8] };
    let row = unsafe { std::slice::from_raw_parts(t.data, t.shape[1]) };
    //~^ host_deref_device_ptr
    Ok(row[0])
}

fn ok_host_ptr_field(data: &[f32]) -> f32 {
    let m = HostMirror { ptr: data.as_ptr(), len: data.len() };
    if m.len == 0 { 0.0 } else { unsafe { *m.ptr } }
}

fn ok_view_field_passed_to_launch(ctx: &Context, s: &Stream, layer: &Layer) -> Result<(), Error> {
    let module = ctx.load_cuda("extern \"C\" __global__ void relu(float* x, unsigned n) {}")?;
    let relu = module.function("relu")?;
    let n = layer.bias.len as u32;
    unsafe { s.launch(&relu, LaunchConfig::for_num_elems(n), &[&layer.bias.ptr, &n])? };
    s.synchronize()
}

fn ok_view_end_pointer_arithmetic(ctx: &Context) -> Result<u64, Error> {
    let dev = ctx.alloc::<f32>(32)?;
    let v = DeviceView::of(&dev);
    Ok(v.end().as_raw() - v.ptr.as_raw())
}

fn ok_mapped_pointer_field(ctx: &Context) -> Result<f32, Error> {
    let flags = PinnedFlags { portable: false, device_mapped: true, write_combined: false };
    let mapped = ctx.alloc_pinned_with_flags::<f32>(8, flags)?;
    let m = HostMirror { ptr: mapped.mapped_device_ptr()?.as_raw() as *const f32, len: 8 };
    Ok(unsafe { *m.ptr.add(m.len - 1) })
}

fn ok_debug_print_view(ctx: &Context) -> Result<String, Error> {
    let dev = ctx.alloc::<f32>(32)?;
    let v = DeviceView::of(&dev);
    Ok(format!("{v:?}"))
}

fn ok_managed_field_read_after_sync(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    struct Stats {
        sums: ManagedBuffer<f32>,
    }
    let stats = Stats { sums: ctx.alloc_managed::<f32>(4)? };
    s.memset_d32(&mut ctx.alloc::<u32>(4)?, 0)?;
    s.synchronize()?;
    Ok(stats.sums[0])
}

// A worker built in a thread and handed batches in a loop (`mem::take` of the pending list):
// its readback buffer is pinned host memory, read after the stream is synchronized, and never
// one of the device buffers beside it, however the analysis holds the struct.
struct Worker {
    stream: Stream,
    output: DeviceBuffer<f32>,
    readback: cuda_lint_runtime::PinnedBuffer<f32>,
}

impl Worker {
    fn new(ctx: &Context) -> Result<Worker, Error> {
        Ok(Worker { stream: ctx.new_stream()?, output: ctx.alloc(256)?, readback: ctx.alloc_pinned(256)? })
    }

    fn run_batch(&mut self, batch: Vec<f32>) -> Result<f32, Error> {
        unsafe { self.stream.copy_dtoh_async(&mut self.readback, &self.output)? };
        self.stream.synchronize()?;
        let mut total = 0.0;
        for (x, &y) in batch.iter().zip(self.readback.iter()) {
            total += x * y;
        }
        Ok(total)
    }
}

fn ok_worker_thread_reads_its_pinned_readback(
    ctx: Context,
    rx: std::sync::mpsc::Receiver<f32>,
) -> std::thread::JoinHandle<Result<(), String>> {
    std::thread::spawn(move || {
        let mut worker = Worker::new(&ctx).map_err(|e| e.to_string())?;
        let mut pending = Vec::new();
        while let Ok(first) = rx.recv() {
            pending.push(first);
            worker.run_batch(std::mem::take(&mut pending)).map_err(|e| e.to_string())?;
        }
        Ok(())
    })
}

fn main() {}

//! case: inference batcher enqueues each batch's readback into its own pinned buffer, records an event and hands (buffer, event) to a writer thread over a channel; the writer waits on the event with cuEventSynchronize before reading, and buffers come back for reuse only after that
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::sync::mpsc;
use std::thread;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const HEAD_SRC: &str = r#"
extern "C" __global__ void classify(const float* feats, float* logits, unsigned int n, unsigned int classes) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * classes) return;
    unsigned int s = i / classes, c = i % classes;
    logits[i] = feats[s] * (float)(c + 1) - 0.5f * (float)c;
}
"#;

struct Readback {
    host: *mut f32,
    len: usize,
    done: sys::CUevent,
    batch: u64,
}
// The pinned buffer and the event are owned by whoever holds the Readback.
unsafe impl Send for Readback {}

#[derive(Clone, Copy)]
struct Ctx(sys::CUcontext);
unsafe impl Send for Ctx {}

fn writer(ctx: Ctx, rx: mpsc::Receiver<Readback>, back: mpsc::Sender<Readback>) -> Res<Vec<(u64, usize)>> {
    unsafe { drv::ctx::set_current(ctx.0) }?;
    let mut argmaxes = Vec::new();
    for rb in rx {
        unsafe { drv::event::synchronize(rb.done) }?;
        let logits = unsafe { std::slice::from_raw_parts(rb.host, rb.len) };
        let best = logits.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i).unwrap_or(0);
        argmaxes.push((rb.batch, best));
        if back.send(rb).is_err() {
            break;
        }
    }
    Ok(argmaxes)
}

pub fn run(batches: Vec<sys::CUdeviceptr>, n: u32, classes: u32) -> Res<Vec<(u64, usize)>> {
    drv::init()?;
    let ctx = Ctx(unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?);
    unsafe { drv::ctx::set_current(ctx.0) }?;
    let image = CString::new(cudarc::nvrtc::compile_ptx(HEAD_SRC)?.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
    let func = unsafe { drv::module::get_function(module, CString::new("classify")?) }?;
    let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
    let len = (n * classes) as usize;
    let d_logits = unsafe { drv::malloc_sync(len * 4) }?;

    let (tx, rx) = mpsc::channel::<Readback>();
    let (back_tx, back_rx) = mpsc::channel::<Readback>();
    let handle = thread::spawn(move || writer(ctx, rx, back_tx));

    // Two buffers in rotation.
    let mut free = Vec::new();
    for _ in 0..2 {
        let host = unsafe { drv::malloc_host(len * 4, 0) }?.cast::<f32>();
        let done = drv::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?;
        free.push(Readback { host, len, done, batch: 0 });
    }

    for (b, &feats) in batches.iter().enumerate() {
        let mut rb = match free.pop() {
            Some(rb) => rb,
            None => back_rx.recv()?,
        };
        let (mut f, mut l, mut nn, mut cc) = (feats, d_logits, n, classes);
        let mut params: [*mut c_void; 4] = [
            (&mut f as *mut u64).cast(),
            (&mut l as *mut u64).cast(),
            (&mut nn as *mut u32).cast(),
            (&mut cc as *mut u32).cast(),
        ];
        unsafe {
            drv::launch_kernel(func, ((len as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, stream, &mut params)?;
            sys::cuMemcpyDtoHAsync_v2(rb.host.cast(), d_logits, len * 4, stream).result()?;
            drv::event::record(rb.done, stream)?;
        }
        rb.batch = b as u64;
        tx.send(rb).map_err(|_| "writer thread stopped")?;
    }
    drop(tx);
    let result = handle.join().map_err(|_| "writer thread panicked")??;
    unsafe { drv::stream::synchronize(stream) }?;
    for rb in free.into_iter().chain(back_rx.try_iter()) {
        unsafe {
            drv::event::destroy(rb.done)?;
            drv::free_host(rb.host.cast())?;
        }
    }
    Ok(result)
}

//! case: seismic processing with worker threads: batches of traces arrive over an mpsc channel as Vec<f32>, and each worker (own non-blocking runtime-API stream, shared NVRTC kernel) uploads its batch with cudaMemcpyAsync directly from the received Vec, applies AGC on the GPU and sends the gains back
//! expect: pageable_async_copy=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

use cudarc::driver::sys as drv;
use cudarc::runtime::sys as rt;

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

const AGC_SRC: &str = r#"
// Automatic gain control: each sample is divided by the RMS of a sliding window.
extern "C" __global__ void agc(const float* traces, float* out, unsigned samples, unsigned ntraces,
                               unsigned half_window, float* gains) {
    unsigned tr = blockIdx.x;
    if (tr >= ntraces) return;
    const float* x = traces + (size_t)tr * samples;
    float* y = out + (size_t)tr * samples;
    float total = 0.f;
    for (unsigned s = threadIdx.x; s < samples; s += blockDim.x) {
        unsigned lo = s > half_window ? s - half_window : 0;
        unsigned hi = min(samples, s + half_window + 1);
        float e = 0.f;
        for (unsigned k = lo; k < hi; ++k) e += x[k] * x[k];
        float g = rsqrtf(e / (hi - lo) + 1e-12f);
        total += g;
        y[s] = x[s] * g;
    }
    atomicAdd(&gains[tr], total / samples);
}
"#;

#[derive(Clone, Copy)]
struct SharedKernel {
    func: drv::CUfunction,
    ctx: drv::CUcontext,
}
// The function handle and context are usable from any thread once loaded.
unsafe impl Send for SharedKernel {}
unsafe impl Sync for SharedKernel {}

pub struct Batch {
    pub id: usize,
    pub traces: Vec<f32>,
    pub samples: u32,
}

fn worker(k: SharedKernel, rx: Arc<Mutex<mpsc::Receiver<Batch>>>, tx: mpsc::Sender<(usize, Vec<f32>)>) -> Result<()> {
    unsafe { drv::cuCtxSetCurrent(k.ctx).result()? };
    let mut stream: rt::cudaStream_t = null_mut();
    unsafe { rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking).result()? };
    loop {
        let batch = match rx.lock().expect("receiver poisoned").recv() {
            Ok(b) => b,
            Err(_) => break,
        };
        let ntraces = batch.traces.len() / batch.samples as usize;
        let bytes = batch.traces.len() * 4;
        let (mut d_traces, mut d_out, mut d_gains): (*mut c_void, *mut c_void, *mut c_void) = (null_mut(), null_mut(), null_mut());
        let mut gains = vec![0f32; ntraces];
        unsafe {
            rt::cudaMalloc(&mut d_traces, bytes).result()?;
            rt::cudaMalloc(&mut d_out, bytes).result()?;
            rt::cudaMalloc(&mut d_gains, ntraces * 4).result()?;
            rt::cudaMemsetAsync(d_gains, 0, ntraces * 4, stream).result()?;
            rt::cudaMemcpyAsync(d_traces, batch.traces.as_ptr().cast(), bytes, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, stream) // EXPECT: pageable_async_copy
                .result()?;
        }
        let (mut t, mut o, mut g) = (d_traces as u64, d_out as u64, d_gains as u64);
        let (mut s, mut n, mut hw) = (batch.samples, ntraces as u32, 125u32);
        let mut params: [*mut c_void; 6] = [
            (&mut t as *mut u64).cast(),
            (&mut o as *mut u64).cast(),
            (&mut s as *mut u32).cast(),
            (&mut n as *mut u32).cast(),
            (&mut hw as *mut u32).cast(),
            (&mut g as *mut u64).cast(),
        ];
        unsafe {
            drv::cuLaunchKernel(k.func, n, 1, 1, 256, 1, 1, 0, stream.cast(), params.as_mut_ptr(), null_mut()).result()?;
            rt::cudaStreamSynchronize(stream).result()?;
            rt::cudaMemcpy(gains.as_mut_ptr().cast(), d_gains, ntraces * 4, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost).result()?;
            rt::cudaFree(d_traces).result()?;
            rt::cudaFree(d_out).result()?;
            rt::cudaFree(d_gains).result()?;
        }
        if tx.send((batch.id, gains)).is_err() {
            break;
        }
    }
    unsafe { rt::cudaStreamDestroy(stream).result()? };
    Ok(())
}

/// Processes every batch on `nworkers` threads; returns the mean gain per trace, per batch.
pub fn run_agc(batches: Vec<Batch>, nworkers: usize) -> Result<Vec<Vec<f32>>> {
    cudarc::runtime::result::device::set(0).map_err(|e| format!("{e:?}"))?;
    let mut dev = 0;
    let mut ctx = null_mut();
    let (mut module, mut func) = (null_mut(), null_mut());
    let ptx = cudarc::nvrtc::compile_ptx(AGC_SRC).map_err(|e| format!("{e:?}"))?;
    let image = CString::new(ptx.to_src())?;
    unsafe {
        drv::cuInit(0).result()?;
        drv::cuDeviceGet(&mut dev, 0).result()?;
        drv::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        drv::cuCtxSetCurrent(ctx).result()?;
        drv::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        drv::cuModuleGetFunction(&mut func, module, c"agc".as_ptr()).result()?;
    }
    let kernel = SharedKernel { func, ctx };
    let (job_tx, job_rx) = mpsc::channel::<Batch>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (res_tx, res_rx) = mpsc::channel();
    let handles: Vec<_> = (0..nworkers)
        .map(|_| {
            let rx = Arc::clone(&job_rx);
            let tx = res_tx.clone();
            thread::spawn(move || worker(kernel, rx, tx))
        })
        .collect();
    drop(res_tx);
    let count = batches.len();
    for b in batches {
        job_tx.send(b).map_err(|_| "all workers exited")?;
    }
    drop(job_tx);
    let mut out = vec![Vec::new(); count];
    for (id, gains) in res_rx {
        out[id] = gains;
    }
    for h in handles {
        h.join().map_err(|_| "worker panicked")??;
    }
    unsafe { drv::cuModuleUnload(module).result()? };
    Ok(out)
}

//! case: astronomical frame stacking with a calibration worker thread on the default stream: the worker records an event after copying each calibrated frame into plain pinned memory and sends (buffer, event) over a channel; the main thread synchronizes the event before reading the pixels
//! expect: none

use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaSlice, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const CALIBRATE_SRC: &str = r#"
extern "C" __global__ void calibrate(float* frame, const float* dark, const float* flat, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) frame[i] = (frame[i] - dark[i]) / fmaxf(flat[i], 1e-3f);
}
"#;

struct Calibrated {
    index: usize,
    pixels: PinnedHostSlice<f32>,
    staged: PinnedHostSlice<f32>,
    ready: CudaEvent,
}

pub struct Masters {
    pub dark: Vec<f32>,
    pub flat: Vec<f32>,
}

fn upload_pinned(ctx: &Arc<CudaContext>, data: &[f32]) -> Result<PinnedHostSlice<f32>, DriverError> {
    let mut p = unsafe { ctx.alloc_pinned_with_flags::<f32>(data.len(), 0)? };
    p.as_mut_slice()?.copy_from_slice(data);
    Ok(p)
}

pub fn stack_frames(raw_frames: Vec<Vec<f32>>, masters: Masters) -> Result<Vec<f32>, Box<dyn std::error::Error + Send + Sync>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let kernel: CudaFunction = ctx.load_module(compile_ptx(CALIBRATE_SRC)?)?.load_function("calibrate")?;
    let n = masters.dark.len();

    let h_dark = upload_pinned(&ctx, &masters.dark)?;
    let h_flat = upload_pinned(&ctx, &masters.flat)?;
    let d_dark: CudaSlice<f32> = stream.clone_htod(&h_dark)?;
    let d_flat: CudaSlice<f32> = stream.clone_htod(&h_flat)?;

    let (tx, rx) = mpsc::channel::<Calibrated>();
    let worker_ctx = ctx.clone();
    let worker = thread::spawn(move || -> Result<(), DriverError> {
        worker_ctx.bind_to_thread()?;
        let stream = worker_ctx.default_stream();
        for (index, raw) in raw_frames.into_iter().enumerate() {
            let staged = upload_pinned(&worker_ctx, &raw)?;
            let mut d_frame = stream.clone_htod(&staged)?;
            let n_i = n as i32;
            let mut launch = stream.launch_builder(&kernel);
            launch.arg(&mut d_frame).arg(&d_dark).arg(&d_flat).arg(&n_i);
            unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;
            let mut pixels = unsafe { worker_ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
            stream.memcpy_dtoh(&d_frame, &mut pixels)?;
            let ready = stream.record_event(None)?;
            // `staged` travels with the frame so it is freed only after the event completed.
            if tx.send(Calibrated { index, pixels, staged, ready }).is_err() {
                break;
            }
        }
        Ok(())
    });

    let mut sum = vec![0f64; n];
    let mut count = 0usize;
    for frame in rx {
        frame.ready.synchronize()?;
        frame.pixels.as_slice()?.iter().zip(sum.iter_mut()).for_each(|(&p, s)| *s += p as f64);
        count += 1;
        if frame.index % 50 == 0 {
            eprintln!("stacked frame {}", frame.index);
        }
        drop(frame.staged);
    }
    worker.join().expect("calibration worker panicked")?;
    stream.synchronize()?;
    drop((h_dark, h_flat));
    Ok(sum.into_iter().map(|s| (s / count.max(1) as f64) as f32).collect())
}

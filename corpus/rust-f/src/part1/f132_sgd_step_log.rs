//! case: a training loop appends per-step log records to a managed ring allocated with `cudaMallocManaged(.., cudaMemAttachHost)` while its kernels run on a cudarc stream; memory attached to the host is not taken by kernels, so host access during the launches is fine even without concurrent managed access, and no kernel ever uses the ring
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

const SGD_SRC: &str = r#"
extern "C" __global__ void sgd_step(float* w, const float* g, float lr, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i];
}

extern "C" __global__ void fake_grad(float* g, const float* w, unsigned int n, unsigned int step)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = w[i] - 0.001f * (float)((i + step) % 13);
}
"#;

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct StepRecord {
    step: u32,
    lr: f32,
    wall_us: u64,
}

/// Host-side ring of step records in managed memory attached to the host.
struct StepLog {
    records: *mut StepRecord,
    capacity: usize,
    len: usize,
}

impl StepLog {
    fn new(capacity: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let mut p: *mut c_void = null_mut();
        unsafe {
            rt::cudaMallocManaged(&mut p, capacity * std::mem::size_of::<StepRecord>(), rt::cudaMemAttachHost).result()?;
        }
        Ok(Self { records: p.cast(), capacity, len: 0 })
    }

    fn push(&mut self, r: StepRecord) {
        unsafe { self.records.add(self.len % self.capacity).write(r) };
        self.len += 1;
    }

    fn last(&self) -> Option<StepRecord> {
        (self.len > 0).then(|| unsafe { self.records.add((self.len - 1) % self.capacity).read() })
    }
}

impl Drop for StepLog {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaFree(self.records.cast());
        }
    }
}

pub fn train(steps: u32, n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SGD_SRC)?)?;
    let (sgd, grad) = (module.load_function("sgd_step")?, module.load_function("fake_grad")?);
    let mut w = stream.alloc_zeros::<f32>(n)?;
    let mut g = stream.alloc_zeros::<f32>(n)?;
    let mut log = StepLog::new(1024)?;
    let started = std::time::Instant::now();
    let n32 = n as u32;
    let cfg = LaunchConfig::for_num_elems(n32);

    for step in 0..steps {
        let lr = 0.1 / (1.0 + step as f32 / 100.0);
        unsafe {
            stream.launch_builder(&grad).arg(&mut g).arg(&w).arg(&n32).arg(&step).launch(cfg)?;
            stream.launch_builder(&sgd).arg(&mut w).arg(&g).arg(&lr).arg(&n32).launch(cfg)?;
        }
        log.push(StepRecord { step, lr, wall_us: started.elapsed().as_micros() as u64 });
        if step % 100 == 0 {
            if let Some(r) = log.last() {
                println!("step {} lr {:.4} at {} us", r.step, r.lr, r.wall_us);
            }
        }
    }
    stream.synchronize()?;
    Ok(())
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    train(1000, 1 << 20)
}

//! case: near-miss. Worker-pool scheduler pushes a fixed 16-word parameter block from a stack array with cudarc's `memcpy_htod` and reads four device counters back with `clone_dtoh` into a `Vec`: both copies are 64 and 32 bytes (latency-bound, under the pageable-copy threshold), and the pageable D2H has completed when `clone_dtoh` returns
//! expect: none

use std::sync::{Arc, Mutex};
use std::thread;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const TICK_SRC: &str = r#"
extern "C" __global__ void scheduler_tick(const unsigned* params, unsigned long long* counters) {
    unsigned lane = threadIdx.x;
    if (lane < 16 && params[lane] != 0u) atomicAdd(&counters[lane & 3u], (unsigned long long)params[lane]);
}
"#;

pub const PARAM_WORDS: usize = 16;
pub const COUNTERS: usize = 4;

pub struct TickState {
    pub ticks: u64,
    pub last: [u64; COUNTERS],
}

pub struct GpuTicker {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    params: CudaSlice<u32>,
    counters: CudaSlice<u64>,
}

impl GpuTicker {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(TICK_SRC)?)?.load_function("scheduler_tick")?;
        Ok(Self { params: stream.alloc_zeros::<u32>(PARAM_WORDS)?, counters: stream.alloc_zeros::<u64>(COUNTERS)?, stream, kernel })
    }

    pub fn tick(&mut self, queue_depths: &[u32]) -> Result<[u64; COUNTERS], DriverError> {
        let mut block = [0u32; PARAM_WORDS];
        for (dst, &d) in block.iter_mut().zip(queue_depths) {
            *dst = d;
        }
        self.stream.memcpy_htod(&block, &mut self.params)?;
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch_builder(&self.kernel).arg(&self.params).arg(&mut self.counters).launch(cfg) }?;
        let snapshot: Vec<u64> = self.stream.clone_dtoh(&self.counters)?;
        let mut out = [0u64; COUNTERS];
        out.copy_from_slice(&snapshot[..COUNTERS]);
        Ok(out)
    }
}

/// Runs `rounds` ticks from a background thread and publishes the counters.
pub fn spawn_ticker(mut ticker: GpuTicker, depths: Arc<Mutex<Vec<u32>>>, state: Arc<Mutex<TickState>>, rounds: usize) -> thread::JoinHandle<Result<(), DriverError>> {
    thread::spawn(move || {
        for _ in 0..rounds {
            let d = depths.lock().unwrap().clone();
            let last = ticker.tick(&d)?;
            let mut s = state.lock().unwrap();
            s.ticks += 1;
            s.last = last;
        }
        Ok(())
    })
}

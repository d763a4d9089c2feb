//! case: a data-parallel trainer averages gradients over several GPUs with cudarc: per-device scaling in scoped threads, peer copies into device 0 (cudarc orders them with events across contexts), a broadcast back, then each thread reads its replica's norm with a 4-byte `clone_dtoh` that returns once the copy is done
//! expect: none

use std::sync::Arc;
use std::thread;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{compile_ptx, Ptx};

const REDUCE_CU: &str = r#"
extern "C" __global__ void scale(float* g, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] *= s;
}
extern "C" __global__ void accumulate(float* acc, const float* other, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += other[i];
}
extern "C" __global__ void sum_squares(const float* g, int n, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, g[i] * g[i]);
}
"#;

pub struct Replica {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    scale: CudaFunction,
    accumulate: CudaFunction,
    sum_squares: CudaFunction,
    pub grads: CudaSlice<f32>,
}

impl Replica {
    pub fn new(ordinal: usize, ptx: &Ptx, grads_len: usize) -> Result<Self, DriverError> {
        let ctx = CudaContext::new(ordinal)?;
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(ptx.clone())?;
        let grads = stream.alloc_zeros::<f32>(grads_len)?;
        Ok(Self {
            scale: module.load_function("scale")?,
            accumulate: module.load_function("accumulate")?,
            sum_squares: module.load_function("sum_squares")?,
            ctx,
            stream,
            grads,
        })
    }

    fn n(&self) -> i32 {
        self.grads.len() as i32
    }

    fn scale_by(&mut self, s: f32) -> Result<(), DriverError> {
        let n = self.n();
        unsafe { self.stream.launch_builder(&self.scale).arg(&mut self.grads).arg(&n).arg(&s).launch(LaunchConfig::for_num_elems(n as u32))? };
        Ok(())
    }

    fn accumulate_from(&mut self, other: &CudaSlice<f32>) -> Result<(), DriverError> {
        let n = self.n();
        unsafe { self.stream.launch_builder(&self.accumulate).arg(&mut self.grads).arg(other).arg(&n).launch(LaunchConfig::for_num_elems(n as u32))? };
        Ok(())
    }

    fn norm(&self) -> Result<f32, DriverError> {
        let n = self.n();
        let mut out = self.stream.alloc_zeros::<f32>(1)?;
        unsafe { self.stream.launch_builder(&self.sum_squares).arg(&self.grads).arg(&n).arg(&mut out).launch(LaunchConfig::for_num_elems(n as u32))? };
        let host = self.stream.clone_dtoh(&out)?;
        Ok(host[0].sqrt())
    }
}

pub fn build_replicas(devices: usize, grads_len: usize) -> Result<Vec<Replica>, Box<dyn std::error::Error>> {
    let ptx = compile_ptx(REDUCE_CU)?;
    Ok((0..devices).map(|d| Replica::new(d, &ptx, grads_len)).collect::<Result<_, _>>()?)
}

/// Averages `grads` over all replicas in place; returns each replica's gradient norm afterwards.
pub fn all_reduce_mean(replicas: &mut [Replica]) -> Result<Vec<f32>, DriverError> {
    let inv = 1.0 / replicas.len() as f32;
    thread::scope(|s| {
        let workers: Vec<_> = replicas.iter_mut().map(|r| s.spawn(move || r.scale_by(inv))).collect();
        workers.into_iter().try_for_each(|w| w.join().expect("scale worker panicked"))
    })?;

    let Some((root, peers)) = replicas.split_first_mut() else {
        return Ok(Vec::new());
    };
    let mut incoming = root.stream.alloc_zeros::<f32>(root.grads.len())?;
    for peer in peers.iter() {
        root.stream.memcpy_dtod(&peer.grads, &mut incoming)?;
        root.accumulate_from(&incoming)?;
    }
    for peer in peers.iter_mut() {
        peer.stream.memcpy_dtod(&root.grads, &mut peer.grads)?;
    }

    thread::scope(|s| {
        let workers: Vec<_> = replicas.iter().map(|r| s.spawn(move || r.norm())).collect();
        workers.into_iter().map(|w| w.join().expect("norm worker panicked")).collect()
    })
}

pub fn contexts(replicas: &[Replica]) -> impl Iterator<Item = &Arc<CudaContext>> {
    replicas.iter().map(|r| &r.ctx)
}

//! case: two-GPU gradient exchange with cudarc's safe API; peer copies into GPU 0, an averaging kernel, a broadcast back, and the global gradient norm read from a flags-0 pinned slice with `as_slice` and no explicit synchronize, which is correct here because each context has its own `new_stream` (multi-stream event tracking: the copy records the slice's event and `as_slice` waits on it)
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const REDUCE_SRC: &str = r#"
extern "C" __global__ void average_into(float* mine, const float* theirs, int n, float* sq_norm) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float g = 0.5f * (mine[i] + theirs[i]);
    mine[i] = g;
    atomicAdd(sq_norm, g * g);
}
"#;

struct Replica {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    grads: CudaSlice<f32>,
}

pub struct GradExchange {
    replicas: Vec<Replica>,
    recv: CudaSlice<f32>,
    sq_norm: CudaSlice<f32>,
    norm_host: PinnedHostSlice<f32>,
    average: CudaFunction,
    n: usize,
}

impl GradExchange {
    pub fn new(n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let replicas = (0..2)
            .map(|ordinal| -> Result<Replica, Box<dyn std::error::Error>> {
                let ctx = CudaContext::new(ordinal)?;
                let stream = ctx.new_stream()?;
                let grads = stream.alloc_zeros::<f32>(n)?;
                Ok(Replica { ctx, stream, grads })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let root = &replicas[0];
        let average = root.ctx.load_module(compile_ptx(REDUCE_SRC)?)?.load_function("average_into")?;
        let recv = root.stream.alloc_zeros::<f32>(n)?;
        let sq_norm = root.stream.alloc_zeros::<f32>(1)?;
        let norm_host = unsafe { root.ctx.alloc_pinned_with_flags::<f32>(1, 0)? };
        Ok(GradExchange { replicas, recv, sq_norm, norm_host, average, n })
    }

    pub fn grads_mut(&mut self, replica: usize) -> (&Arc<CudaStream>, &mut CudaSlice<f32>) {
        let r = &mut self.replicas[replica];
        (&r.stream, &mut r.grads)
    }

    /// Averages the two replicas' gradients in place on both GPUs; returns the global norm.
    pub fn all_reduce(&mut self) -> Result<f32, Box<dyn std::error::Error>> {
        let (root, rest) = self.replicas.split_first_mut().ok_or("no replicas")?;
        let peer = &mut rest[0];
        root.stream.memset_zeros(&mut self.sq_norm)?;
        root.stream.memcpy_dtod(&peer.grads, &mut self.recv)?;
        let n = self.n as i32;
        let mut launch = root.stream.launch_builder(&self.average);
        launch.arg(&mut root.grads).arg(&self.recv).arg(&n).arg(&mut self.sq_norm);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.n as u32)) }?;
        peer.stream.memcpy_dtod(&root.grads, &mut peer.grads)?;
        root.stream.memcpy_dtoh(&self.sq_norm, &mut self.norm_host)?;
        let norm = self.norm_host.as_slice()?[0].sqrt();
        Ok(norm)
    }
}

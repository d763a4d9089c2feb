//! case: near-miss of managed access during kernels: a routing table lives in cudarc unified memory attached to a side stream only (CU_MEM_ATTACH_SINGLE); the host edits it while the attention kernel runs on the compute stream, which is allowed because the side stream that owns the table is idle
//! expect: none

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const MOE_SRC: &str = r#"
extern "C" __global__ void expert_ffn(const float* x, const float* w, float* y, int tokens, int dim) {
    int t = blockIdx.x, d = threadIdx.x;
    if (t < tokens && d < dim) y[t * dim + d] = fmaxf(0.f, x[t * dim + d] * w[d]);
}
extern "C" __global__ void route(const unsigned int* table, const float* gate, unsigned int* expert_of, int tokens, int experts) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < tokens) {
        int e = (int)(gate[t] * experts) % experts;
        expert_of[t] = table[e];
    }
}
"#;

pub struct MoeStep {
    compute: Arc<CudaStream>,
    side: Arc<CudaStream>,
    ffn: CudaFunction,
    route: CudaFunction,
    table: UnifiedSlice<u32>,
}

impl MoeStep {
    pub fn new(ctx: &Arc<CudaContext>, experts: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(MOE_SRC)?)?;
        let compute = ctx.new_stream()?;
        let side = ctx.new_stream()?;
        let mut table = unsafe { ctx.alloc_unified::<u32>(experts, false)? };
        table.attach(&side, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE)?;
        side.synchronize()?;
        table.as_mut_slice()?.iter_mut().enumerate().for_each(|(e, slot)| *slot = e as u32);
        Ok(Self { compute, side, ffn: module.load_function("expert_ffn")?, route: module.load_function("route")?, table })
    }

    pub fn step(&mut self, x: &CudaSlice<f32>, w: &CudaSlice<f32>, y: &mut CudaSlice<f32>, gate: &CudaSlice<f32>, expert_of: &mut CudaSlice<u32>, tokens: i32, dim: i32, remap: &[(usize, u32)]) -> Result<(), Box<dyn std::error::Error>> {
        let mut ffn = self.compute.launch_builder(&self.ffn);
        ffn.arg(x).arg(w).arg(y).arg(&tokens).arg(&dim);
        unsafe { ffn.launch(LaunchConfig { grid_dim: (tokens as u32, 1, 1), block_dim: (dim as u32, 1, 1), shared_mem_bytes: 0 })? };

        // rebalance experts while the FFN runs: the table belongs to the (idle) side stream
        let table = self.table.as_mut_slice()?;
        for &(e, target) in remap {
            table[e] = target;
        }

        let experts = self.table.len() as i32;
        let mut route = self.side.launch_builder(&self.route);
        route.arg(&self.table).arg(gate).arg(expert_of).arg(&tokens).arg(&experts);
        unsafe { route.launch(LaunchConfig::for_num_elems(tokens as u32))? };
        self.side.synchronize()?;
        self.compute.synchronize()?;
        Ok(())
    }
}

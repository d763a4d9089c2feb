//! case: variant caller keeps its host-side base-quality recalibration table in a cudarc UnifiedSlice allocated with attach_global = false (CU_MEM_ATTACH_HOST, never given to a kernel); the host refills it while the pileup kernel runs on the device stream (near-miss for managed_concurrent_access: host-attached memory)
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const PILEUP_SRC: &str = r#"
extern "C" __global__ void pileup(const unsigned char* bases, const int* starts, unsigned reads, unsigned read_len, unsigned* counts, unsigned ref_len) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= reads) return;
    for (unsigned j = 0; j < read_len; ++j) {
        unsigned pos = starts[r] + j;
        if (pos < ref_len) atomicAdd(&counts[pos * 4 + (bases[r * read_len + j] & 3)], 1u);
    }
}
"#;

pub struct QualityModel {
    pub cycle_bias: Vec<f32>,
}

pub struct PileupEngine {
    stream: Arc<CudaStream>,
    pileup: CudaFunction,
    /// Host-attached: the CPU-side recalibration reads and writes it; no kernel takes it.
    recal: UnifiedSlice<f32>,
}

impl PileupEngine {
    pub fn new(ctx: &Arc<CudaContext>, read_len: usize) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Self {
            stream: ctx.new_stream()?,
            pileup: ctx.load_module(compile_ptx(PILEUP_SRC)?)?.load_function("pileup")?,
            recal: unsafe { ctx.alloc_unified::<f32>(read_len * 4, false)? },
        })
    }

    pub fn run_region(
        &mut self,
        bases: &CudaSlice<u8>,
        starts: &CudaSlice<i32>,
        counts: &mut CudaSlice<u32>,
        read_len: u32,
        model: &QualityModel,
    ) -> Result<f32, Box<dyn std::error::Error>> {
        let reads = starts.len() as u32;
        let ref_len = (counts.len() / 4) as u32;
        unsafe {
            self.stream
                .launch_builder(&self.pileup)
                .arg(bases)
                .arg(starts)
                .arg(&reads)
                .arg(&read_len)
                .arg(counts)
                .arg(&ref_len)
                .launch(LaunchConfig::for_num_elems(reads))?;
        }
        // Overlap the CPU recalibration with the pileup kernel.
        let table = self.recal.as_mut_slice()?;
        for (cycle, q) in table.chunks_exact_mut(4).enumerate() {
            let b = model.cycle_bias.get(cycle).copied().unwrap_or(0.0);
            q.iter_mut().enumerate().for_each(|(base, v)| *v = b * (1.0 + base as f32 * 0.01));
        }
        let mean_bias = table.iter().sum::<f32>() / table.len().max(1) as f32;
        self.stream.synchronize()?;
        Ok(mean_bias)
    }
}

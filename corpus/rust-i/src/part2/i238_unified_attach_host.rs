//! case: fraud-scoring service (cudarc) that keeps an audit ring in managed memory allocated host-attached (alloc_unified(.., false), CU_MEM_ATTACH_HOST) and appends to it while the scoring kernel runs on another stream; host-attached managed memory is not taken by kernels, so the CPU may touch it at any time (near-miss)
//! expect: none

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

const FRAUD_SRC: &str = r#"
extern "C" __global__ void score_txn(const float* amount, const float* velocity, unsigned n, float* risk) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) risk[i] = 1.0f / (1.0f + expf(-(0.002f * amount[i] + 0.8f * velocity[i] - 4.0f)));
}
"#;

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct AuditEntry {
    pub batch: u64,
    pub txns: u32,
    pub flags: u32,
}

pub struct FraudScorer {
    stream: Arc<CudaStream>,
    score: CudaFunction,
    audit: UnifiedSlice<AuditEntry>,
    audit_head: usize,
    batch: u64,
}

unsafe impl cudarc::driver::DeviceRepr for AuditEntry {}
unsafe impl cudarc::driver::ValidAsZeroBits for AuditEntry {}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl FraudScorer {
    pub fn new(ctx: &Arc<CudaContext>, audit_len: usize) -> Res<Self> {
        let stream = ctx.new_stream()?;
        let score = ctx.load_module(compile_ptx(FRAUD_SRC)?)?.load_function("score_txn")?;
        // Host-attached: only the CPU uses the audit ring.
        let audit = unsafe { ctx.alloc_unified::<AuditEntry>(audit_len, false)? };
        Ok(FraudScorer { stream, score, audit, audit_head: 0, batch: 0 })
    }

    pub fn score(&mut self, amount: &CudaSlice<f32>, velocity: &CudaSlice<f32>, risk: &mut CudaSlice<f32>) -> Res<()> {
        let n = amount.len() as u32;
        unsafe {
            self.stream
                .launch_builder(&self.score)
                .arg(amount)
                .arg(velocity)
                .arg(&n)
                .arg(risk)
                .launch(LaunchConfig::for_num_elems(n))?;
        }
        self.batch += 1;
        let slot = self.audit_head % self.audit.len();
        self.audit.as_mut_slice()?[slot] = AuditEntry { batch: self.batch, txns: n, flags: 0 };
        self.audit_head += 1;
        Ok(())
    }

    pub fn recent_audit(&self, k: usize) -> Res<Vec<AuditEntry>> {
        let ring = self.audit.as_slice()?;
        let len = ring.len();
        Ok((0..k.min(self.audit_head).min(len)).map(|i| ring[(self.audit_head - 1 - i) % len]).collect())
    }
}

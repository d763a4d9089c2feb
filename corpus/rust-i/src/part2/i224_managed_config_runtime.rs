//! case: GPU rate limiter for an API gateway (runtime crate): per-tenant limits live in a ManagedBuffer the host edits directly; the admin update writes it right after the token-bucket kernel (which does not use it) was launched, before any synchronization
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};
use std::collections::HashMap;

const BUCKET_SRC: &str = r#"
extern "C" __global__ void refill(float* tokens, const float* rates, float dt, unsigned tenants, float cap) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < tenants) tokens[t] = fminf(cap, tokens[t] + rates[t] * dt);
}
"#;

pub struct RateLimiter {
    stream: Stream,
    refill: Kernel,
    tokens: DeviceBuffer<f32>,
    rates: DeviceBuffer<f32>,
    /// Limits the admin API edits in place: [burst, per-minute] per tenant.
    limits: ManagedBuffer<u32>,
    tenant_index: HashMap<String, usize>,
}

pub struct LimitUpdate {
    pub tenant: String,
    pub burst: u32,
    pub per_minute: u32,
}

impl RateLimiter {
    pub fn new(ctx: &Context, tenants: &[&str]) -> Result<Self> {
        let n = tenants.len();
        Ok(RateLimiter {
            stream: ctx.new_stream()?,
            refill: ctx.load_cuda(BUCKET_SRC)?.function("refill")?,
            tokens: ctx.alloc_zeroed(n)?,
            rates: ctx.alloc_zeroed(n)?,
            limits: ctx.alloc_managed(2 * n)?,
            tenant_index: tenants.iter().enumerate().map(|(i, t)| (t.to_string(), i)).collect(),
        })
    }

    /// One scheduler tick: refill every bucket, then apply pending admin updates.
    pub fn tick(&mut self, dt: f32, updates: &[LimitUpdate]) -> Result<()> {
        let tenants = self.tenant_index.len() as u32;
        let cap = 1.0e6f32;
        unsafe {
            self.stream.launch(&self.refill, LaunchConfig::for_num_elems(tenants), &[&self.tokens, &self.rates, &dt, &tenants, &cap])?;
        }
        for u in updates {
            if let Some(&i) = self.tenant_index.get(&u.tenant) {
                self.limits[2 * i] = u.burst; // EXPECT: managed_concurrent_access
                self.limits[2 * i + 1] = u.per_minute;
            }
        }
        self.stream.synchronize()
    }

    pub fn limits_of(&self, tenant: &str) -> Option<(u32, u32)> {
        self.tenant_index.get(tenant).map(|&i| (self.limits[2 * i], self.limits[2 * i + 1]))
    }
}

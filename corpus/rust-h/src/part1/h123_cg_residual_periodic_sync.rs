//! case: conjugate-gradient Poisson solver (cuda-lint-runtime) that copies the residual norm into a one-element pinned buffer every iteration but, to save latency, synchronizes the stream only every `check_every` iterations; the residual is read every iteration, so on the other iterations it is read while the copy is in flight
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Module, PinnedBuffer, Result, Stream};

const CG_SRC: &str = r#"
// 1D Poisson matrix (2 on the diagonal, -1 off it), one fused kernel per phase.
extern "C" __global__ void apply_and_dot(const double* p, double* ap, double* pap, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = 2.0 * p[i] - (i > 0 ? p[i - 1] : 0.0) - (i + 1 < n ? p[i + 1] : 0.0);
    ap[i] = v;
    atomicAdd(pap, v * p[i]);
}
extern "C" __global__ void update(double* x, double* r, double* p, const double* ap, const double* pap,
                                  double* rr_new, double rr_old, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double alpha = rr_old / *pap;
    x[i] += alpha * p[i];
    r[i] -= alpha * ap[i];
    atomicAdd(rr_new, r[i] * r[i]);
}
extern "C" __global__ void new_direction(double* p, const double* r, double beta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = r[i] + beta * p[i];
}
"#;

pub struct CgSolver {
    stream: Stream,
    _module: Module,
    apply: Kernel,
    update: Kernel,
    direction: Kernel,
    check_every: usize,
}

pub struct CgOutcome {
    pub iterations: usize,
    pub residual: f64,
}

impl CgSolver {
    pub fn new(ctx: &Context, check_every: usize) -> Result<Self> {
        let module = ctx.load_cuda(CG_SRC)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            apply: module.function("apply_and_dot")?,
            update: module.function("update")?,
            direction: module.function("new_direction")?,
            _module: module,
            check_every,
        })
    }

    /// Solves A x = b (x, r, p already initialised on the device with x = 0, r = p = b).
    pub fn solve(&self, x: &mut DeviceBuffer<f64>, r: &mut DeviceBuffer<f64>, p: &mut DeviceBuffer<f64>, rr0: f64, tol: f64, max_iter: usize) -> Result<CgOutcome> {
        let ctx = self.stream.context();
        let n = x.len() as i32;
        let cfg = LaunchConfig::for_num_elems(n as u32);
        let mut ap = ctx.alloc_zeroed::<f64>(x.len())?;
        let mut pap = ctx.alloc_zeroed::<f64>(1)?;
        let mut rr_dev = ctx.alloc_zeroed::<f64>(1)?;
        let mut rr_host: PinnedBuffer<f64> = ctx.alloc_pinned(1)?;
        let mut rr_old = rr0;

        for iter in 0..max_iter {
            self.stream.memset_d8_async(&mut pap, 0)?;
            self.stream.memset_d8_async(&mut rr_dev, 0)?;
            unsafe {
                self.stream.launch(&self.apply, cfg, &[&*p, &mut ap, &mut pap, &n])?;
                self.stream.launch(&self.update, cfg, &[&mut *x, &mut *r, &*p, &ap, &pap, &mut rr_dev, &rr_old, &n])?;
                self.stream.copy_dtoh_async(&mut rr_host, &rr_dev)?;
            }
            if iter % self.check_every == 0 {
                self.stream.synchronize()?;
            }
            let rr_new = rr_host[0]; // EXPECT: missing_sync
            if rr_new.sqrt() < tol {
                self.stream.synchronize()?;
                return Ok(CgOutcome { iterations: iter + 1, residual: rr_new.sqrt() });
            }
            let beta = rr_new / rr_old;
            unsafe { self.stream.launch(&self.direction, cfg, &[&mut *p, &*r, &beta, &n])? };
            rr_old = rr_new;
        }
        self.stream.synchronize()?;
        Ok(CgOutcome { iterations: max_iter, residual: rr_old.sqrt() })
    }
}

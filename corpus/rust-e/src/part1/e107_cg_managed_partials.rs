//! case: preconditioned conjugate-gradient step; the SpMV and the p.Ap block reduction (into managed memory) run on the main stream while the Jacobi preconditioner runs on a second stream; the host sums the managed partials after syncing only the main stream, with the preconditioner kernel (which does not touch them) maybe still running
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, DeviceRepr, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const CG_SRC: &str = r#"
extern "C" __global__ void csr_spmv(const int* row_ptr, const int* col, const float* val,
                                    const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float acc = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j) acc += val[j] * x[col[j]];
    y[row] = acc;
}
extern "C" __global__ void block_dot(const float* a, const float* b, float* partials, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? a[i] * b[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}
extern "C" __global__ void jacobi_apply(const float* diag_inv, const float* r, float* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = diag_inv[i] * r[i];
}
"#;

/// Stages `data` through page-locked memory and copies it with the blocking form.
fn upload<T: DeviceRepr + Copy>(ctx: &Context, stream: &Stream, data: &[T]) -> Result<DeviceBuffer<T>> {
    let mut staging = ctx.alloc_pinned::<T>(data.len())?;
    staging.copy_from_slice(data);
    let mut dev = ctx.alloc::<T>(data.len())?;
    stream.copy_htod(&mut dev, &staging)?;
    Ok(dev)
}

pub struct CgSolver {
    main: Stream,
    precond: Stream,
    spmv: Kernel,
    dot: Kernel,
    jacobi: Kernel,
    row_ptr: DeviceBuffer<i32>,
    col: DeviceBuffer<i32>,
    val: DeviceBuffer<f32>,
    diag_inv: DeviceBuffer<f32>,
    p: DeviceBuffer<f32>,
    ap: DeviceBuffer<f32>,
    r: DeviceBuffer<f32>,
    z: DeviceBuffer<f32>,
    partials: ManagedBuffer<f32>,
    n: usize,
    ctx: Context,
}

impl CgSolver {
    pub fn new(ctx: Context, row_ptr: &[i32], col: &[i32], val: &[f32], rhs: &[f32]) -> Result<Self> {
        let n = rhs.len();
        let module = ctx.load_cuda(CG_SRC)?;
        let main = ctx.new_stream()?;
        let precond = ctx.new_stream()?;
        let diag: Vec<f32> = (0..n)
            .map(|i| {
                (row_ptr[i] as usize..row_ptr[i + 1] as usize)
                    .find(|&j| col[j] as usize == i)
                    .map_or(1.0, |j| 1.0 / val[j])
            })
            .collect();
        Ok(CgSolver {
            spmv: module.function("csr_spmv")?,
            dot: module.function("block_dot")?,
            jacobi: module.function("jacobi_apply")?,
            row_ptr: upload(&ctx, &main, row_ptr)?,
            col: upload(&ctx, &main, col)?,
            val: upload(&ctx, &main, val)?,
            diag_inv: upload(&ctx, &main, &diag)?,
            p: upload(&ctx, &main, rhs)?,
            r: upload(&ctx, &main, rhs)?,
            ap: ctx.alloc_zeroed(n)?,
            z: ctx.alloc_zeroed(n)?,
            partials: ctx.alloc_managed(n.div_ceil(256))?,
            main,
            precond,
            n,
            ctx,
        })
    }

    /// Returns p.Ap; z = M^-1 r is computed alongside on the preconditioner stream.
    pub fn p_dot_ap(&mut self) -> Result<f32> {
        let n = self.n as i32;
        let cfg = LaunchConfig::for_num_elems(self.n as u32);
        unsafe {
            self.precond.launch(&self.jacobi, cfg, &[&self.diag_inv, &self.r, &self.z, &n])?;
            self.main.launch(&self.spmv, cfg, &[&self.row_ptr, &self.col, &self.val, &self.p, &self.ap, &n])?;
            self.main.launch(&self.dot, cfg, &[&self.p, &self.ap, &self.partials, &n])?;
        }
        self.main.synchronize()?;
        let pap: f32 = self.partials.iter().sum(); // EXPECT: managed_concurrent_access
        Ok(pap)
    }

    pub fn finish_iteration(&self) -> Result<()> {
        self.precond.synchronize()
    }
}

//! case: finite-element stiffness assembly (cuda-lint-runtime); the verbose log prints the device buffer's address (fine: no access) and then its first entries through a host slice built over `device_ptr().as_raw()`: a host read of device memory
//! expect: host_deref_device_ptr=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const ASSEMBLE_SRC: &str = r#"
// 1D linear elements: each element adds its 2x2 local stiffness into the tridiagonal global matrix
// stored as (lower, diag, upper) triples per node.
extern "C" __global__ void assemble_1d(const double* coords, const double* conductivity, double* k_global, int n_elem) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n_elem) return;
    double h = coords[e + 1] - coords[e];
    double k = conductivity[e] / h;
    atomicAdd(&k_global[3 * e + 1], k);
    atomicAdd(&k_global[3 * e + 2], -k);
    atomicAdd(&k_global[3 * (e + 1)], -k);
    atomicAdd(&k_global[3 * (e + 1) + 1], k);
}
"#;

pub struct Assembler {
    stream: Stream,
    kernel: Kernel,
    verbose: bool,
}

impl Assembler {
    pub fn new(ctx: &Context, verbose: bool) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(ASSEMBLE_SRC)?.function("assemble_1d")?, verbose })
    }

    /// Assembles the global matrix from element data already staged in pinned memory.
    pub fn assemble(&self, coords: &PinnedBuffer<f64>, conductivity: &PinnedBuffer<f64>) -> Result<DeviceBuffer<f64>> {
        let ctx = self.stream.context();
        let n_elem = conductivity.len();
        let mut d_coords = ctx.alloc::<f64>(coords.len())?;
        let mut d_cond = ctx.alloc::<f64>(n_elem)?;
        let mut k_global = ctx.alloc_zeroed::<f64>(3 * (n_elem + 1))?;
        unsafe {
            self.stream.copy_htod_async(&mut d_coords, coords)?;
            self.stream.copy_htod_async(&mut d_cond, conductivity)?;
            let n = n_elem as i32;
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n_elem as u32), &[&d_coords, &d_cond, &mut k_global, &n])?;
        }
        self.stream.synchronize()?;

        if self.verbose {
            eprintln!("assembled K ({} nodes) at {}", n_elem + 1, k_global.device_ptr());
            let head = unsafe { std::slice::from_raw_parts(k_global.device_ptr().as_raw() as *const f64, 6) }; // EXPECT: host_deref_device_ptr
            eprintln!("first rows: {head:?}");
        }
        Ok(k_global)
    }
}

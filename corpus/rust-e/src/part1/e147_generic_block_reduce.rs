//! case: generic reductions (sum, max) over device columns with cudarc; a grid of 64 blocks writes partials that are downloaded with `memcpy_dtoh` into a 64-element stack array and folded right away, which is correct without a synchronize (a device-to-pageable copy returns once done) and too small to need pinned memory
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, DriverError, LaunchConfig, PushKernelArg, ValidAsZeroBits};
use cudarc::nvrtc::compile_ptx;

const REDUCE_SRC: &str = r#"
#define BLOCK_REDUCE(NAME, T, ID, OP)                                              \
extern "C" __global__ void NAME(const T* x, unsigned long long n, T* partials) {   \
    __shared__ T s[256];                                                           \
    T acc = ID;                                                                    \
    for (unsigned long long i = blockIdx.x * 256ull + threadIdx.x; i < n;          \
         i += 256ull * gridDim.x) acc = OP(acc, x[i]);                             \
    s[threadIdx.x] = acc;                                                          \
    __syncthreads();                                                               \
    for (int k = 128; k > 0; k >>= 1) {                                            \
        if (threadIdx.x < k) s[threadIdx.x] = OP(s[threadIdx.x], s[threadIdx.x + k]); \
        __syncthreads();                                                           \
    }                                                                              \
    if (threadIdx.x == 0) partials[blockIdx.x] = s[0];                             \
}
#define ADD(a, b) ((a) + (b))
BLOCK_REDUCE(sum_f64, double, 0.0, ADD)
BLOCK_REDUCE(max_f32, float, -3.0e38f, fmaxf)
"#;

const BLOCKS: usize = 64;

pub trait Reduction {
    type T: DeviceRepr + ValidAsZeroBits + Copy + Default;
    const KERNEL: &'static str;
    fn combine(a: Self::T, b: Self::T) -> Self::T;
    fn identity() -> Self::T;
}

pub struct Sum;
impl Reduction for Sum {
    type T = f64;
    const KERNEL: &'static str = "sum_f64";
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    fn identity() -> f64 {
        0.0
    }
}

pub struct Max;
impl Reduction for Max {
    type T = f32;
    const KERNEL: &'static str = "max_f32";
    fn combine(a: f32, b: f32) -> f32 {
        a.max(b)
    }
    fn identity() -> f32 {
        f32::MIN
    }
}

pub struct Reducer {
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
}

impl Reducer {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Reducer { stream: ctx.default_stream(), module: ctx.load_module(compile_ptx(REDUCE_SRC)?)? })
    }

    pub fn reduce<R: Reduction>(&self, column: &CudaSlice<R::T>) -> Result<R::T, DriverError> {
        let f: CudaFunction = self.module.load_function(R::KERNEL)?;
        let mut partials = self.stream.alloc_zeros::<R::T>(BLOCKS)?;
        let n = column.len() as u64;
        let cfg = LaunchConfig { grid_dim: (BLOCKS as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&f);
        launch.arg(column).arg(&n).arg(&mut partials);
        unsafe { launch.launch(cfg) }?;
        let mut host = [R::T::default(); BLOCKS];
        self.stream.memcpy_dtoh(&partials, &mut host)?;
        Ok(host.iter().copied().fold(R::identity(), R::combine))
    }
}

pub fn column_summary(r: &Reducer, col: &CudaSlice<f64>, peaks: &CudaSlice<f32>) -> Result<(f64, f32), DriverError> {
    Ok((r.reduce::<Sum>(col)?, r.reduce::<Max>(peaks)?))
}

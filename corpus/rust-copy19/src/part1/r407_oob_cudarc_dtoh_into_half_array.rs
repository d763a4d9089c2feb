//! case: cudarc: a kernel fills a device slice of N partial sums and memcpy_dtoh copies all N of them into a stack array of N/2 elements: the destination is shorter than the source
//! expect: copy_out_of_bounds=1
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 512;

const PARTIAL_SRC: &str = r#"
extern "C" __global__ void partial_sums(const float* x, float* sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sums[i] = x[2 * i] + x[2 * i + 1];
}
"#;

pub fn pair_sums() -> Result<f32, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(PARTIAL_SRC)?)?.load_function("partial_sums")?;

    let input = vec![1.5f32; 2 * N];
    let d_x = stream.clone_htod(&input)?;
    let mut d_sums = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_x).arg(&mut d_sums).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }?;

    let mut host = [0.0f32; N / 2];
    stream.memcpy_dtoh(&d_sums, &mut host)?; // EXPECT: copy_out_of_bounds
    stream.synchronize()?;
    Ok(host.iter().sum())
}

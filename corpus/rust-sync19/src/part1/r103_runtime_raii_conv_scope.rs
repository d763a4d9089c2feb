//! case: a 3x3 convolution's weights live in a RAII runtime buffer (cudaFree in Drop) inside an inner block; the block ends right after cudaLaunchKernel on a created stream, so the weights are freed while the kernel may still read them
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result as drv;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::{self as rt_result, RuntimeError};
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const SRC: &str = r#"
extern "C" __global__ void conv3x3(const float* src, float* dst, const float* w,
                                   int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), width - 1);
            int yy = min(max(y + dy, 0), height - 1);
            acc += w[(dy + 1) * 3 + (dx + 1)] * src[yy * width + xx];
        }
    }
    dst[y * width + x] = acc;
}
"#;

const GAUSS_3X3: [f32; 9] = [
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0,
    2.0 / 16.0, 4.0 / 16.0, 2.0 / 16.0,
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0,
];

/// `cudaMalloc`'d memory, released with `cudaFree` on drop.
struct CudaBuffer {
    ptr: *mut c_void,
    bytes: usize,
}

impl CudaBuffer {
    fn alloc(bytes: usize) -> Result<Self, RuntimeError> {
        let mut ptr = ptr::null_mut();
        unsafe { rt::cudaMalloc(&mut ptr, bytes).result()? };
        Ok(Self { ptr, bytes })
    }

    fn upload(data: &[f32]) -> Result<Self, RuntimeError> {
        let buf = Self::alloc(std::mem::size_of_val(data))?;
        unsafe {
            rt::cudaMemcpy(buf.ptr, data.as_ptr().cast(), buf.bytes, cudaMemcpyKind::cudaMemcpyHostToDevice)
                .result()?
        };
        Ok(buf)
    }
}

impl Drop for CudaBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaFree(self.ptr);
        }
    }
}

pub fn blur(image: &[f32], width: usize, height: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    assert_eq!(image.len(), width * height);
    unsafe { rt::cudaSetDevice(0).result()? };
    let ptx = compile_ptx(SRC)?;
    let ptx_image = CString::new(ptx.to_src())?;
    let module = unsafe { drv::module::load_data(ptx_image.as_ptr().cast())? };
    let conv = unsafe { drv::module::get_function(module, CString::new("conv3x3")?)? };
    let mut stream: cudaStream_t = ptr::null_mut();
    unsafe { rt::cudaStreamCreate(&mut stream).result()? };

    let src = CudaBuffer::upload(image)?;
    let dst = CudaBuffer::alloc(image.len() * std::mem::size_of::<f32>())?;
    {
        let weights = CudaBuffer::upload(&GAUSS_3X3)?;
        let mut p_src = src.ptr;
        let mut p_dst = dst.ptr;
        let mut p_w = weights.ptr;
        let mut w = width as i32;
        let mut h = height as i32;
        let mut args: [*mut c_void; 5] = [
            (&raw mut p_src).cast(),
            (&raw mut p_dst).cast(),
            (&raw mut p_w).cast(),
            (&raw mut w).cast(),
            (&raw mut h).cast(),
        ];
        let grid = (width.div_ceil(16) as u32, height.div_ceil(16) as u32, 1);
        unsafe { rt_result::launch_kernel(conv, grid, (16, 16, 1), 0, stream, &mut args)? };
    } // EXPECT: relies_on_implicit_sync

    let mut out = vec![0.0f32; image.len()];
    unsafe {
        rt::cudaStreamSynchronize(stream).result()?;
        rt::cudaMemcpy(out.as_mut_ptr().cast(), dst.ptr, dst.bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost)
            .result()?;
        rt::cudaStreamDestroy(stream).result()?;
        drv::module::unload(module)?;
    }
    Ok(out)
}

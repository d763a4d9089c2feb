//! case: runtime API with two created streams: a calibration kernel (waited for with cudaStreamSynchronize) and then a decode kernel on stream A; the calibration table is cudaFree'd and a reduce kernel on stream B reads the decoded buffer next, ordered after the decode only by that free of other memory
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result as drv;
use cudarc::driver::sys::CUfunction;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::{RuntimeError, launch_kernel};
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const SRC: &str = r#"
extern "C" __global__ void calibrate(float* raw, const float* gain, int channels, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) raw[i] *= gain[i % channels];
}

extern "C" __global__ void decode(const float* raw, float* decoded, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) decoded[i] = raw[i] < 0.0f ? 0.0f : sqrtf(raw[i]);
}

extern "C" __global__ void block_sums(const float* decoded, float* sums, int n) {
    __shared__ float part[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? decoded[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}
"#;

fn run_kernel(f: CUfunction, stream: cudaStream_t, blocks: usize, args: &mut [*mut c_void]) -> Result<(), RuntimeError> {
    unsafe { launch_kernel(f, (blocks as u32, 1, 1), (256, 1, 1), 0, stream, args) }
}

pub fn decoded_energy(raw: &[f32], gain: &[f32]) -> Result<f32, Box<dyn Error>> {
    let n = raw.len();
    let blocks = n.div_ceil(256);
    unsafe { rt::cudaSetDevice(0).result()? };
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast())? };
    let calibrate = unsafe { drv::module::get_function(module, CString::new("calibrate")?)? };
    let decode = unsafe { drv::module::get_function(module, CString::new("decode")?)? };
    let block_sums = unsafe { drv::module::get_function(module, CString::new("block_sums")?)? };

    let mut sums = vec![0.0f32; blocks];
    unsafe {
        let mut stream_a: cudaStream_t = ptr::null_mut();
        let mut stream_b: cudaStream_t = ptr::null_mut();
        let mut d_raw: *mut c_void = ptr::null_mut();
        let mut d_gain: *mut c_void = ptr::null_mut();
        let mut d_decoded: *mut c_void = ptr::null_mut();
        let mut d_sums: *mut c_void = ptr::null_mut();
        let setup = [
            rt::cudaStreamCreate(&mut stream_a),
            rt::cudaStreamCreate(&mut stream_b),
            rt::cudaMalloc(&mut d_raw, n * 4),
            rt::cudaMalloc(&mut d_gain, gain.len() * 4),
            rt::cudaMalloc(&mut d_decoded, n * 4),
            rt::cudaMalloc(&mut d_sums, blocks * 4),
        ];
        let mut status: Result<(), RuntimeError> = setup.iter().try_for_each(|e| e.result());
        if status.is_err() {
            rt::cudaFree(d_raw);
            rt::cudaFree(d_gain);
            rt::cudaFree(d_decoded);
            rt::cudaFree(d_sums);
            rt::cudaStreamDestroy(stream_a);
            rt::cudaStreamDestroy(stream_b);
            return Err(status.unwrap_err().into());
        }

        status = rt::cudaMemcpy(d_raw, raw.as_ptr().cast(), n * 4, cudaMemcpyKind::cudaMemcpyHostToDevice)
            .result()
            .and(
                rt::cudaMemcpy(d_gain, gain.as_ptr().cast(), gain.len() * 4, cudaMemcpyKind::cudaMemcpyHostToDevice)
                    .result(),
            );
        if status.is_ok() {
            let (mut p_raw, mut p_gain, mut ch, mut n_i) = (d_raw, d_gain, gain.len() as i32, n as i32);
            let mut args: [*mut c_void; 4] =
                [(&raw mut p_raw).cast(), (&raw mut p_gain).cast(), (&raw mut ch).cast(), (&raw mut n_i).cast()];
            status = run_kernel(calibrate, stream_a, blocks, &mut args)
                .and(rt::cudaStreamSynchronize(stream_a).result());
        }
        if status.is_ok() {
            let (mut p_raw, mut p_dec, mut n_i) = (d_raw, d_decoded, n as i32);
            let mut args: [*mut c_void; 3] = [(&raw mut p_raw).cast(), (&raw mut p_dec).cast(), (&raw mut n_i).cast()];
            status = run_kernel(decode, stream_a, blocks, &mut args);
        }

        // Calibration is finished (synchronized above): give its table back.
        let _ = rt::cudaFree(d_gain);

        if status.is_ok() {
            let (mut p_dec, mut p_sums, mut n_i) = (d_decoded, d_sums, n as i32);
            let mut args: [*mut c_void; 3] = [(&raw mut p_dec).cast(), (&raw mut p_sums).cast(), (&raw mut n_i).cast()];
            status = run_kernel(block_sums, stream_b, blocks, &mut args); // EXPECT: relies_on_implicit_sync
        }
        let synced = rt::cudaDeviceSynchronize().result();
        if status.is_ok() && synced.is_ok() {
            status = rt::cudaMemcpy(sums.as_mut_ptr().cast(), d_sums, blocks * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost)
                .result();
        }
        rt::cudaFree(d_raw);
        rt::cudaFree(d_decoded);
        rt::cudaFree(d_sums);
        rt::cudaStreamDestroy(stream_a);
        rt::cudaStreamDestroy(stream_b);
        let _ = drv::module::unload(module);
        status?;
        synced?;
    }
    Ok(sums.iter().sum())
}

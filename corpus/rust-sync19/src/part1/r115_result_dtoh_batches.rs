//! case: batched sigmoid scoring: each batch is uploaded (blocking), scored by a kernel on a created stream and copied back with driver::result::memcpy_dtoh_async into a reusable Vec; the host appends the Vec's scores right away with no wait for the stream
//! expect: relies_on_implicit_sync=1, pageable_async_copy=1

use std::error::Error;
use std::ffi::{CString, c_void};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void score(const float* features, const float* weights, float bias,
                                 float* scores, int dim, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float z = bias;
        for (int k = 0; k < dim; ++k) z += features[r * dim + k] * weights[k];
        scores[r] = 1.0f / (1.0f + expf(-z));
    }
}
"#;

struct Scorer {
    f: CUfunction,
    stream: CUstream,
    d_w: CUdeviceptr,
    bias: f32,
    dim: usize,
}

impl Scorer {
    fn score_batch(&self, d_feat: CUdeviceptr, d_scores: CUdeviceptr, rows: usize) -> Result<(), DriverError> {
        let (mut p_f, mut p_w, mut b, mut p_s, mut d, mut r) =
            (d_feat, self.d_w, self.bias, d_scores, self.dim as i32, rows as i32);
        let mut args: [*mut c_void; 6] = [
            (&raw mut p_f).cast(),
            (&raw mut p_w).cast(),
            (&raw mut b).cast(),
            (&raw mut p_s).cast(),
            (&raw mut d).cast(),
            (&raw mut r).cast(),
        ];
        unsafe { result::launch_kernel(self.f, (rows.div_ceil(128) as u32, 1, 1), (128, 1, 1), 0, self.stream, &mut args) }
    }
}

/// Scores `features` (rows of `weights.len()` values) in batches of `batch_rows` rows.
pub fn score_all(features: &[f32], weights: &[f32], bias: f32, batch_rows: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    let dim = weights.len();
    assert!(dim > 0 && batch_rows > 0 && features.len() % dim == 0);
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("score")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let mut all_scores = Vec::with_capacity(features.len() / dim);
    let mut host_scores = vec![0.0f32; batch_rows];
    unsafe {
        let mut d_w: CUdeviceptr = 0;
        let mut d_feat: CUdeviceptr = 0;
        let mut d_scores: CUdeviceptr = 0;
        let a1 = sys::cuMemAlloc_v2(&mut d_w, dim * 4);
        let a2 = sys::cuMemAlloc_v2(&mut d_feat, batch_rows * dim * 4);
        let a3 = sys::cuMemAlloc_v2(&mut d_scores, batch_rows * 4);
        if let Err(e) = a1.result().and(a2.result()).and(a3.result()) {
            let _ = sys::cuMemFree_v2(d_w);
            let _ = sys::cuMemFree_v2(d_feat);
            let _ = sys::cuMemFree_v2(d_scores);
            return Err(e.into());
        }
        let scorer = Scorer { f, stream, d_w, bias, dim };

        let mut status = result::memcpy_htod_sync(d_w, weights);
        for batch in features.chunks(batch_rows * dim) {
            if status.is_err() {
                break;
            }
            let rows = batch.len() / dim;
            status = result::memcpy_htod_sync(d_feat, batch);
            if status.is_ok() {
                status = scorer.score_batch(d_feat, d_scores, rows);
            }
            if status.is_ok() {
                status = result::memcpy_dtoh_async(&mut host_scores[..rows], d_scores, stream); // EXPECT: pageable_async_copy
            }
            all_scores.extend_from_slice(&host_scores[..rows]); // EXPECT: relies_on_implicit_sync
        }

        let synced = result::stream::synchronize(stream);
        let _ = result::free_sync(d_w);
        let _ = result::free_sync(d_feat);
        let _ = result::free_sync(d_scores);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
    }
    Ok(all_scores)
}

//! case: search ranker (cudarc driver::result) scores documents on a non-blocking stream and fetches the scores with memcpy_dtoh_sync, a blocking copy on the legacy default stream that does not wait for the non-blocking stream's kernel
//! expect: missing_sync=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const BM25_SRC: &str = r#"
extern "C" __global__ void bm25(const unsigned int* tf, const float* idf, const unsigned int* doc_len,
                                float avg_len, unsigned int terms, unsigned int docs, float* scores) {
    unsigned int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= docs) return;
    const float k1 = 1.2f, b = 0.75f;
    float norm = k1 * (1.f - b + b * doc_len[d] / avg_len);
    float s = 0.f;
    for (unsigned int t = 0; t < terms; ++t) {
        float f = (float)tf[t * docs + d];
        s += idf[t] * f * (k1 + 1.f) / (f + norm);
    }
    scores[d] = s;
}
"#;

pub struct Ranker {
    stream: sys::CUstream,
    bm25: sys::CUfunction,
    d_scores: sys::CUdeviceptr,
    docs: usize,
}

impl Ranker {
    pub fn new(docs: usize) -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(BM25_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let bm25 = unsafe { drv::module::get_function(module, CString::new("bm25")?) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let d_scores = unsafe { drv::malloc_sync(docs * 4) }?;
        Ok(Ranker { stream, bm25, d_scores, docs })
    }

    /// Top `k` documents for a query whose term statistics are already on the device.
    pub fn top_k(&self, tf: sys::CUdeviceptr, idf: sys::CUdeviceptr, doc_len: sys::CUdeviceptr, avg_len: f32, terms: u32, k: usize) -> Res<Vec<(u32, f32)>> {
        let (mut a, mut b, mut c, mut avg, mut t, mut n, mut s) = (tf, idf, doc_len, avg_len, terms, self.docs as u32, self.d_scores);
        let mut params: [*mut c_void; 7] = [
            (&mut a as *mut u64).cast(),
            (&mut b as *mut u64).cast(),
            (&mut c as *mut u64).cast(),
            (&mut avg as *mut f32).cast(),
            (&mut t as *mut u32).cast(),
            (&mut n as *mut u32).cast(),
            (&mut s as *mut u64).cast(),
        ];
        unsafe { drv::launch_kernel(self.bm25, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params) }?;

        let mut scores = vec![0f32; self.docs];
        // Blocking copy: returns only when the scores are on the host.
        unsafe { drv::memcpy_dtoh_sync(&mut scores, self.d_scores) }?; // EXPECT: missing_sync
        let mut ranked: Vec<(u32, f32)> = scores.iter().enumerate().map(|(i, &s)| (i as u32, s)).collect();
        ranked.sort_unstable_by(|x, y| y.1.total_cmp(&x.1));
        ranked.truncate(k);
        Ok(ranked)
    }
}

impl Drop for Ranker {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.stream);
            let _ = drv::free_sync(self.d_scores);
            let _ = drv::stream::destroy(self.stream);
        }
    }
}

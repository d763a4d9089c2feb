use cuda_lint_runtime::{DeviceBuffer, Result, Stream};

#[cuda_lint::synchronizes(strm)]
pub fn wait(s: &Stream) -> Result<()> {
    s.synchronize()
}

#[cuda_lint::copies_async(htod, dst = out, src = src, stream = s)]
pub unsafe fn upload(s: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
    unsafe { s.copy_htod_async(dst, src) }
}

#[cuda_lint::launches(stream = s, reads(input), writes(dst))]
pub fn launch(s: &Stream, dst: &mut DeviceBuffer<f32>) -> Result<()> {
    let _ = dst;
    s.synchronize()
}

pub struct Queue(Stream);

impl Queue {
    #[cuda_lint::synchronizes(stream)]
    pub fn finish(&self) -> Result<()> {
        self.0.synchronize()
    }
}

#[cuda_lint::synchronizes(s)]
pub fn no_parameters() {}

fn main() {}

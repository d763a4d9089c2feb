use cuda_lint_runtime::{DeviceBuffer, Result, Stream};

#[cuda_lint::synchronizes]
pub fn no_stream(s: &Stream) -> Result<()> {
    s.synchronize()
}

#[cuda_lint::synchronizes(stream = s)]
pub fn key_value(s: &Stream) -> Result<()> {
    s.synchronize()
}

#[cuda_lint::copies_async(htoh, dst = dst, src = src, stream = s)]
pub unsafe fn unknown_direction(s: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
    unsafe { s.copy_htod_async(dst, src) }
}

#[cuda_lint::copies_async(dst = dst, htod, src = src, stream = s)]
pub unsafe fn direction_not_first(s: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
    unsafe { s.copy_htod_async(dst, src) }
}

#[cuda_lint::copies_async(dst = dst, src = src)]
pub unsafe fn no_stream_key(s: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
    unsafe { s.copy_htod_async(dst, src) }
}

#[cuda_lint::copies_async(to = dst, src = src, stream = s)]
pub unsafe fn unknown_key(s: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
    unsafe { s.copy_htod_async(dst, src) }
}

#[cuda_lint::copies_async(dst = dst, dst = src, stream = s)]
pub unsafe fn twice(s: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
    unsafe { s.copy_htod_async(dst, src) }
}

#[cuda_lint::copies_async(dst = "dst", src = src, stream = s)]
pub unsafe fn not_a_name(s: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
    unsafe { s.copy_htod_async(dst, src) }
}

#[cuda_lint::launches(reads(x), writes(x))]
pub fn launch_without_stream(x: &DeviceBuffer<f32>) {
    let _ = x;
}

#[cuda_lint::launches(stream = s, read(x))]
pub fn launch_unknown_key(s: &Stream, x: &DeviceBuffer<f32>) {
    let _ = (s, x);
}

#[cuda_lint::returns(host)]
pub fn unknown_kind() -> Vec<f32> {
    Vec::new()
}

#[cuda_lint::returns()]
pub fn no_kind() -> Vec<f32> {
    Vec::new()
}

#[cuda_lint::returns(pinned)]
pub fn returns_nothing() {}

fn main() {}

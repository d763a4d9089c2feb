//! case: a tone-mapping stage uploads a 256-entry lookup table (1 KiB, from the stack) with cudarc's memcpy_htod each frame
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct ToneMapper {
    stream: Arc<CudaStream>,
    d_lut: CudaSlice<f32>,
}

fn gamma_lut(gamma: f32) -> [f32; 256] {
    let mut lut = [0.0f32; 256];
    lut.iter_mut().enumerate().for_each(|(i, v)| *v = (i as f32 / 255.0).powf(1.0 / gamma));
    lut
}

impl ToneMapper {
    pub fn new() -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.new_stream()?;
        let d_lut = stream.clone_htod(&gamma_lut(2.2))?;
        Ok(Self { stream, d_lut })
    }

    pub fn set_gamma(&mut self, gamma: f32) -> Res<()> {
        let lut = gamma_lut(gamma);
        self.stream.memcpy_htod(&lut, &mut self.d_lut)?;
        Ok(())
    }
}

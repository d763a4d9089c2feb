//! case: a logistic-regression trainer moves features and weights with cudarc's safe API (memcpy_htod, clone_htod, clone_dtoh, memcpy_dtoh), whose direction is fixed by the types.
//! expect: none
use cudarc::driver::{CudaContext, CudaSlice, DriverError};

pub struct LogReg {
    pub weights: CudaSlice<f32>,
    pub dim: usize,
}

pub fn train_epoch(features: &Vec<f32>, labels: &Vec<f32>, dim: usize) -> Result<Vec<f32>, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut d_x = stream.alloc_zeros::<f32>(features.len())?;
    stream.memcpy_htod(features, &mut d_x)?;
    let d_y = stream.clone_htod(labels)?;
    let init = vec![0.0f32; dim];
    let mut model = LogReg { weights: stream.alloc_zeros::<f32>(dim)?, dim };
    stream.memcpy_htod(&init, &mut model.weights)?;
    // gradient kernel would read d_x, d_y and update model.weights
    let _ = &d_y;
    let w = stream.clone_dtoh(&model.weights)?;
    let mut preds = vec![0.0f32; labels.len()];
    let d_preds = stream.clone_htod(&preds)?;
    stream.memcpy_dtoh(&d_preds, &mut preds)?;
    stream.synchronize()?;
    Ok(w)
}

pub fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

use cudarc::driver::DriverError;

#[derive(Debug)]
pub enum BackendError {
    UnknownBackend,
    TooManyTokens(usize),
    Cuda(DriverError),
}

impl From<DriverError> for BackendError {
    fn from(e: DriverError) -> Self {
        BackendError::Cuda(e)
    }
}

pub trait Backend: Send {
    fn name(&self) -> &str;
    fn embed(&mut self, tokens: &[u32]) -> Result<Vec<f32>, BackendError>;
}

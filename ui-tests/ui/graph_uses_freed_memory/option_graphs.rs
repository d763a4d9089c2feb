//@no-rustfix
//! A struct that records its graph lazily in an `Option<CudaGraph>` (found in corpus
//! rust-graph19c, r1106). Near miss: the graph is set to `None` (dropped, destroyed) before the
//! buffer it names is replaced, and recorded again over the new one. Fires: a graph kept while
//! the buffer it names is replaced (assigned a new `CudaSlice`), then launched.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, sys};

pub struct Stepper {
    frame: Option<CudaGraph>,
    stream: Arc<CudaStream>,
    step: CudaFunction,
    data: CudaSlice<f32>,
    n: i32,
}

impl Stepper {
    fn frame(&mut self) -> Result<&CudaGraph, Box<dyn std::error::Error>> {
        if self.frame.is_none() {
            self.stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
            let launched = unsafe {
                self.stream
                    .launch_builder(&self.step)
                    .arg(&mut self.data)
                    .arg(&self.n)
                    .launch(LaunchConfig::for_num_elems(self.n as u32))
            };
            let graph = self.stream.end_capture(sys::CUgraphInstantiate_flags(0));
            launched?;
            self.frame = graph?;
        }
        Ok(self.frame.as_ref().ok_or("no graph")?)
    }

    pub fn run(&mut self) -> Result<(), Box<dyn std::error::Error>> {
        self.frame()?.launch()?;
        Ok(())
    }

    /// Near miss: the graph goes before the buffer it names.
    pub fn regrow(&mut self) -> Result<(), Box<dyn std::error::Error>> {
        self.stream.synchronize()?;
        self.frame = None;
        self.n *= 2;
        self.data = self.stream.alloc_zeros::<f32>(self.n as usize)?;
        Ok(())
    }

}

fn stepper(ctx: &Arc<CudaContext>, step: CudaFunction) -> Result<Stepper, Box<dyn std::error::Error>> {
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let data = stream.alloc_zeros::<f32>(256)?;
    Ok(Stepper {
        frame: None,
        stream,
        step,
        data,
        n: 256,
    })
}

fn ok_rerecords_after_regrow(ctx: &Arc<CudaContext>, step: CudaFunction) -> Result<(), Box<dyn std::error::Error>> {
    let mut s = stepper(ctx, step)?;
    s.run()?;
    s.regrow()?;
    s.run()?;
    s.stream.synchronize()?;
    Ok(())
}

/// Fires: a graph kept while the buffer it names is replaced by a bigger one.
fn fires_relaunches_after_regrow(ctx: &Arc<CudaContext>, step: CudaFunction) -> Result<(), Box<dyn std::error::Error>> {
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let mut data = stream.alloc_zeros::<f32>(256)?;
    let n = 256i32;
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    let launched = unsafe {
        stream
            .launch_builder(&step)
            .arg(&mut data)
            .arg(&n)
            .launch(LaunchConfig::for_num_elems(n as u32))
    };
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0));
    launched?;
    let graph = graph?.ok_or("no graph")?;
    graph.launch()?;
    stream.synchronize()?;
    data = stream.alloc_zeros::<f32>(512)?;
    graph.launch()?;
    //~^ graph_uses_freed_memory
    stream.synchronize()?;
    drop(graph);
    drop(data);
    Ok(())
}

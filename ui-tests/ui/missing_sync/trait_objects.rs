// A method called on a trait object (`Box<dyn Stage>`) runs each implementation the crate has,
// joined as "may": work one implementation enqueues and a later call reads is followed, through
// a function that only sees `dyn Stage`.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

trait Stage {
    fn enqueue(&mut self, stream: &Stream) -> Result<(), Error>;
    fn collect(&mut self) -> f32;
}

struct Download {
    dev: DeviceBuffer<f32>,
    host: PinnedBuffer<f32>,
}

impl Download {
    fn new(ctx: &Context) -> Result<Download, Error> {
        Ok(Download { dev: ctx.alloc(1 << 20)?, host: ctx.alloc_pinned(1 << 20)? })
    }
}

impl Stage for Download {
    fn enqueue(&mut self, stream: &Stream) -> Result<(), Error> {
        unsafe { stream.copy_dtoh_async(&mut self.host, &self.dev) }
    }
    fn collect(&mut self) -> f32 {
        self.host.iter().sum()
    }
}

struct Cpu {
    values: Vec<f32>,
}

impl Stage for Cpu {
    fn enqueue(&mut self, _stream: &Stream) -> Result<(), Error> {
        Ok(())
    }
    fn collect(&mut self) -> f32 {
        self.values.iter().sum()
    }
}

fn fires_collect_before_the_stream_is_synchronized(stream: &Stream, stages: &mut [Box<dyn Stage>]) -> Result<f32, Error> {
    for stage in stages.iter_mut() {
        stage.enqueue(stream)?;
    }
    let mut total = 0.0;
    for stage in stages.iter_mut() {
        total += stage.collect(); //~ missing_sync
    }
    stream.synchronize()?;
    Ok(total)
}

fn ok_collect_after_the_stream_is_synchronized(stream: &Stream, stages: &mut [Box<dyn Stage>]) -> Result<f32, Error> {
    for stage in stages.iter_mut() {
        stage.enqueue(stream)?;
    }
    stream.synchronize()?;
    let mut total = 0.0;
    for stage in stages.iter_mut() {
        total += stage.collect();
    }
    Ok(total)
}

fn fires_one_object_by_reference(stream: &Stream, stage: &mut dyn Stage) -> Result<f32, Error> {
    stage.enqueue(stream)?;
    Ok(stage.collect()) //~ missing_sync
}

fn build(ctx: &Context) -> Result<Vec<Box<dyn Stage>>, Error> {
    Ok(vec![Box::new(Download::new(ctx)?), Box::new(Cpu { values: vec![1.0; 4] })])
}

fn main() {}

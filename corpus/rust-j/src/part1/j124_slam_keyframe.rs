//! case: visual SLAM keyframe store uploads each keyframe's ORB descriptors from the feature extractor's pageable Vec with `copy_htod_async`, then "verifies" the upload by viewing the device buffer's raw pointer as a host slice
//! expect: pageable_async_copy=1, host_deref_device_ptr=1

use std::collections::BTreeMap;

use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub struct Keyframe {
    pub id: u32,
    pub pose: [f32; 12],
    /// 256-bit ORB descriptors, 8 words each.
    pub descriptors: Vec<u32>,
}

pub struct KeyframeStore {
    ctx: Context,
    stream: Stream,
    frames: BTreeMap<u32, (DeviceBuffer<u32>, [f32; 12])>,
    pub paranoid: bool,
}

impl KeyframeStore {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, frames: BTreeMap::new(), paranoid: cfg!(debug_assertions) })
    }

    pub fn insert(&mut self, kf: Keyframe) -> Result<()> {
        let mut dev = self.ctx.alloc::<u32>(kf.descriptors.len())?;
        unsafe { self.stream.copy_htod_async(&mut dev, &kf.descriptors)? }; // EXPECT: pageable_async_copy
        if self.paranoid {
            self.stream.synchronize()?;
            let words = kf.descriptors.len();
            let on_gpu = unsafe { std::slice::from_raw_parts(dev.device_ptr().as_raw() as *const u32, words) }; // EXPECT: host_deref_device_ptr
            assert_eq!(on_gpu[..8.min(words)], kf.descriptors[..8.min(words)], "descriptor upload corrupted");
        }
        self.frames.insert(kf.id, (dev, kf.pose));
        Ok(())
    }

    pub fn covisible(&self, pose: &[f32; 12], radius: f32) -> impl Iterator<Item = u32> + '_ {
        let c = [pose[3], pose[7], pose[11]];
        self.frames.iter().filter_map(move |(&id, (_, p))| {
            let d = [(p[3] - c[0]), (p[7] - c[1]), (p[11] - c[2])];
            (d.iter().map(|x| x * x).sum::<f32>() < radius * radius).then_some(id)
        })
    }
}

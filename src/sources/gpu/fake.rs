//! An in-process GPU source that replays a script: for tests of the sampler,
//! the integrator and the commands, without forking a program per reading.

use std::collections::VecDeque;

use super::{Device, GpuSource, SampleError};

/// Replays `script` one step per reading; the last step repeats.
pub struct Fake {
    script: VecDeque<Result<Vec<Device>, SampleError>>,
    last: Option<Result<Vec<Device>, SampleError>>,
    /// Readings taken so far.
    pub calls: usize,
}

impl Fake {
    /// A source answering each step of `script` in turn, then its last step forever.
    pub fn new(script: Vec<Result<Vec<Device>, SampleError>>) -> Fake {
        Fake { script: script.into(), last: None, calls: 0 }
    }

    /// `n` devices drawing `watts` each, at every reading.
    pub fn constant(n: u32, watts: f64) -> Fake {
        Fake::new(vec![Ok(devices(n, watts))])
    }
}

/// `n` devices named `Fake GPU`, each drawing `watts`.
pub fn devices(n: u32, watts: f64) -> Vec<Device> {
    (0..n).map(|index| Device { index, name: "Fake GPU".into(), power_w: Some(watts), ..Device::default() }).collect()
}

impl GpuSource for Fake {
    fn sample(&mut self) -> Result<Vec<Device>, SampleError> {
        self.calls += 1;
        if let Some(step) = self.script.pop_front() {
            self.last = Some(step);
        }
        self.last.clone().unwrap_or(Err(SampleError::NoDevices("the fake has no devices".into())))
    }

    fn describe(&self) -> String {
        "fake (in-process)".into()
    }

    fn fields(&self) -> &'static str {
        "fake"
    }

    fn kind(&self) -> &'static str {
        "fake"
    }
}

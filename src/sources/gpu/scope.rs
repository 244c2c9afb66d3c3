//! The GPUs a job holds: from `--gpus` or the variables a scheduler, a
//! container runtime or a user sets, resolved against the devices read.
//!
//! First that is set wins: `--gpus`, `CUDA_VISIBLE_DEVICES`,
//! `NVIDIA_VISIBLE_DEVICES`, `SLURM_STEP_GPUS`, `SLURM_JOB_GPUS`,
//! `ROCR_VISIBLE_DEVICES`, `HIP_VISIBLE_DEVICES`; none set means every GPU.
//! `SLURM_STEP_GPUS` comes before `SLURM_JOB_GPUS`: inside a step it is the
//! narrower of the two. `none`, `void`, `NoDevFiles` or an empty value mean
//! the job holds no GPU; `all` (a container runtime's word) means every one.
//!
//! An entry is an index, a `GPU-` UUID (or a unique prefix of one, as CUDA
//! takes) or a `MIG-` UUID, which stands for the GPU it is a slice of: a MIG
//! instance has no power reading of its own. An index is the tool's (PCI
//! bus) order, which is CUDA's only with `CUDA_DEVICE_ORDER=PCI_BUS_ID`;
//! otherwise the report says how it was mapped. Like CUDA, a variable's list
//! ends at its first malformed entry; `--gpus` is refused instead.

use std::sync::{Arc, Mutex};

use super::{Device, GpuSource, SampleError};

/// The variables that name a job's GPUs, in the order they are looked at.
pub const VARIABLES: &[&str] =
    &["CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"];

pub use crate::model::gpu::Scope;

/// One entry's form: true when it is well formed.
fn well_formed(e: &str) -> bool {
    e.parse::<u32>().is_ok()
        || ((e.starts_with("GPU-") || e.starts_with("MIG-"))
            && e.len() > 4
            && e[4..].chars().all(|c| c.is_ascii_hexdigit() || c == '-' || c == '/'))
}

/// The entries of one value; `strict` refuses a malformed entry, else the list ends there (as CUDA reads it).
fn entries(value: &str, what: &str, strict: bool, notes: &mut Vec<String>) -> Result<Option<Vec<String>>, String> {
    let v = value.trim();
    if v.is_empty() || ["none", "void", "NoDevFiles"].contains(&v) {
        return Ok(Some(Vec::new()));
    }
    if v == "all" {
        return Ok(None);
    }
    let mut out = Vec::new();
    for e in v.split(',').map(str::trim) {
        if !well_formed(e) {
            let shown = crate::text::clean(e);
            if strict {
                return Err(format!("{what}: '{shown}' is not a GPU index, GPU- UUID or MIG- UUID"));
            }
            notes.push(format!("{what} is read up to '{shown}', which is not a GPU index or UUID (as CUDA reads it)"));
            break;
        }
        out.push(e.to_string());
    }
    Ok(Some(out))
}

/// The scope from `--gpus`, else the first variable set (`var` reads the environment).
pub fn decide(flag: Option<&str>, var: &dyn Fn(&str) -> Option<String>) -> Result<Scope, String> {
    let mut notes = Vec::new();
    let (devices, from) = if let Some(f) = flag {
        (entries(f, "--gpus", true, &mut notes)?, "--gpus".to_string())
    } else if let Some((name, value)) = VARIABLES.iter().find_map(|n| var(n).map(|v| (*n, v))) {
        (entries(&value, name, false, &mut notes)?, name.to_string())
    } else {
        return Ok(Scope::all());
    };
    Ok(Scope { devices, from, notes, measured: None, unmatched: Vec::new(), allocated: Vec::new() })
}

/// A MIG instance's GPU and, where known, its compute slices of the GPU's.
pub type MigOf<'a> = dyn FnMut(&str) -> Option<(u32, Option<(u32, u32)>)> + 'a;

/// The devices of the first reading that `scope` names: their indices, with notes and unmatched entries set.
pub fn resolve(scope: &mut Scope, read: &[Device], mig: &mut MigOf<'_>, pci_order: bool) {
    let Some(wanted) = scope.devices.clone() else {
        scope.measured = Some(read.iter().map(|d| d.index).collect());
        return;
    };
    let mut indices: Vec<u32> = Vec::new();
    let mut whole: Vec<u32> = Vec::new();
    let mut by_index = false;
    for (k, e) in wanted.iter().enumerate() {
        // The same entry twice names one device once (a MIG instance's slices are not counted twice).
        if wanted[..k].contains(e) {
            continue;
        }
        let found = if let Ok(i) = e.parse::<u32>() {
            by_index = true;
            read.iter().any(|d| d.index == i).then_some(i)
        } else if e.starts_with("MIG-") {
            let found = mig(e);
            match found {
                Some((p, Some((slices, of)))) => {
                    scope.notes.push(format!(
                        "{e} is a MIG instance of GPU {p}, {slices} of its {of} compute slices: the job is charged that share of the \
                         GPU's energy, idle included (by allocation: a GPU has no energy reading per instance)"
                    ));
                    match scope.allocated.iter_mut().find(|a| a.device == p) {
                        Some(a) => a.slices = (a.slices + slices).min(of),
                        None => scope.allocated.push(crate::model::gpu::Allocation { device: p, slices, of }),
                    }
                }
                Some((p, None)) => scope
                    .notes
                    .push(format!("{e} is a MIG instance of GPU {p}: the energy is the whole GPU's, which has no reading per instance")),
                None => {}
            }
            found.map(|(p, _)| p)
        } else {
            let hits: Vec<u32> =
                read.iter().filter(|d| d.uuid.as_deref().is_some_and(|u| u.starts_with(e.as_str()))).map(|d| d.index).collect();
            (hits.len() == 1).then(|| hits[0])
        };
        if let Some(i) = found.filter(|_| !e.starts_with("MIG-")) {
            whole.push(i);
        }
        match found {
            Some(i) if !indices.contains(&i) => indices.push(i),
            Some(_) => {}
            None => scope.unmatched.push(e.clone()),
        }
    }
    if by_index && !pci_order && read.len() > 1 && scope.from != "SLURM_STEP_GPUS" && scope.from != "SLURM_JOB_GPUS" {
        scope.notes.push(
            "indices are taken in the tool's (PCI bus) order; CUDA's default order (fastest first) can differ: set CUDA_DEVICE_ORDER=PCI_BUS_ID or give UUIDs"
                .into(),
        );
    }
    // A GPU named whole as well as by its MIG instances is the job's whole: charged whole, said.
    let both: Vec<u32> = scope.allocated.iter().map(|a| a.device).filter(|d| whole.contains(d)).collect();
    for d in both {
        scope.allocated.retain(|a| a.device != d);
        scope.notes.push(format!("GPU {d} is named whole as well as by its MIG instances: its whole energy is the job's"));
    }
    if !scope.unmatched.is_empty() {
        scope.notes.push(format!("not on this host, not measured: {}", scope.unmatched.join(", ")));
    }
    indices.sort_unstable();
    scope.measured = Some(indices);
}

/// A source that reads only the job's GPUs. The scope, resolved at the first reading, is shared with the caller.
pub struct Scoped {
    inner: Box<dyn GpuSource>,
    scope: Arc<Mutex<Scope>>,
    pci_order: bool,
}

impl Scoped {
    /// Wraps `inner`; `pci_order` is whether CUDA numbers devices in PCI bus order.
    pub fn new(inner: Box<dyn GpuSource>, scope: Arc<Mutex<Scope>>, pci_order: bool) -> Scoped {
        Scoped { inner, scope, pci_order }
    }
}

impl GpuSource for Scoped {
    fn sample(&mut self) -> Result<Vec<Device>, SampleError> {
        let mut read = self.inner.sample()?;
        let mut scope = self.scope.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if scope.measured.is_none() {
            let inner = &mut self.inner;
            resolve(&mut scope, &read, &mut |u| inner.mig(u), self.pci_order);
        }
        let keep = scope.measured.clone().unwrap_or_default();
        if keep.is_empty() {
            let given = scope.devices.as_ref().map(|d| d.join(",")).unwrap_or_default();
            return Err(SampleError::NoDevices(format!("none of the job's GPUs ({}={given}) is on this host", scope.from)));
        }
        read.retain(|d| keep.contains(&d.index));
        Ok(read)
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn fields(&self) -> &'static str {
        self.inner.fields()
    }

    fn counter_every(&mut self, every: std::time::Duration) {
        self.inner.counter_every(every);
    }

    fn counter_now(&mut self) {
        self.inner.counter_now();
    }

    fn shorten(&mut self, deadline: std::time::Duration) {
        self.inner.shorten(deadline);
    }

    fn take_notices(&mut self) -> Vec<String> {
        self.inner.take_notices()
    }

    fn processes(&mut self) -> Option<Vec<(u32, u32)>> {
        self.inner.processes()
    }

    fn process_activity(&mut self) -> Option<super::ProcessActivity> {
        self.inner.process_activity()
    }

    fn mig(&mut self, uuid: &str) -> Option<(u32, Option<(u32, u32)>)> {
        self.inner.mig(uuid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_string())
    }

    fn dev(index: u32, uuid: &str) -> Device {
        Device { index, uuid: Some(uuid.into()), ..Device::default() }
    }

    #[test]
    fn the_first_set_wins_and_words_mean_none_or_all() {
        let s = decide(None, &env(&[("SLURM_JOB_GPUS", "2,3"), ("CUDA_VISIBLE_DEVICES", "1")])).unwrap();
        assert_eq!((s.devices.unwrap(), s.from.as_str()), (vec!["1".to_string()], "CUDA_VISIBLE_DEVICES"));
        assert_eq!(decide(None, &env(&[])).unwrap(), Scope::all());
        for word in ["none", "void", "NoDevFiles", ""] {
            assert!(decide(None, &env(&[("NVIDIA_VISIBLE_DEVICES", word)])).unwrap().none(), "{word}");
        }
        let all = decide(None, &env(&[("NVIDIA_VISIBLE_DEVICES", "all")])).unwrap();
        assert_eq!((all.devices, all.from.as_str()), (None, "NVIDIA_VISIBLE_DEVICES"));
        let flag = decide(Some("GPU-8932f937"), &env(&[("CUDA_VISIBLE_DEVICES", "1")])).unwrap();
        assert_eq!(flag.from, "--gpus");
    }

    #[test]
    fn a_variable_ends_at_a_bad_entry_and_the_flag_refuses_it() {
        let s = decide(None, &env(&[("CUDA_VISIBLE_DEVICES", "0,2,-1,1")])).unwrap();
        assert_eq!(s.devices.unwrap(), vec!["0", "2"]);
        assert!(s.notes[0].contains("'-1'"), "{:?}", s.notes);
        assert!(decide(Some("0,gpu1"), &env(&[])).unwrap_err().contains("'gpu1'"));
    }

    #[test]
    fn uuids_prefixes_and_mig_instances_resolve_to_indices() {
        let read = [dev(0, "GPU-aaaa-1111"), dev(1, "GPU-bbbb-2222"), dev(2, "GPU-bbbc-3333")];
        let mut s = decide(Some("GPU-aaaa,MIG-0000-1,GPU-bbb,7"), &env(&[])).unwrap();
        resolve(&mut s, &read, &mut |u| (u == "MIG-0000-1").then_some((1, None)), true);
        assert_eq!(s.measured, Some(vec![0, 1]));
        // GPU-bbb is a prefix of two devices: ambiguous, so it names none.
        assert_eq!(s.unmatched, vec!["GPU-bbb", "7"]);
        assert!(s.notes.iter().any(|n| n.contains("MIG instance of GPU 1")), "{:?}", s.notes);
    }

    #[test]
    fn a_mig_instance_named_twice_counts_once_and_its_gpu_named_whole_is_charged_whole() {
        use crate::model::gpu::Allocation;
        let read = [dev(0, "GPU-a"), dev(1, "GPU-b")];
        let mut s = decide(Some("MIG-0a,MIG-0a"), &env(&[])).unwrap();
        resolve(&mut s, &read, &mut |_| Some((1, Some((3, 7)))), true);
        assert_eq!(s.allocated, vec![Allocation { device: 1, slices: 3, of: 7 }]);
        let mut s = decide(Some("1,MIG-0a"), &env(&[])).unwrap();
        resolve(&mut s, &read, &mut |_| Some((1, Some((3, 7)))), true);
        assert!(s.allocated.is_empty() && s.notes.iter().any(|n| n.contains("named whole")), "{:?}", s.notes);
        assert_eq!(s.measured, Some(vec![1]));
    }

    #[test]
    fn an_index_says_how_it_was_mapped_unless_the_order_is_pci() {
        let read = [dev(0, "GPU-a"), dev(1, "GPU-b")];
        let mut s = decide(None, &env(&[("CUDA_VISIBLE_DEVICES", "1")])).unwrap();
        resolve(&mut s, &read, &mut |_| None, false);
        assert!(s.notes.iter().any(|n| n.contains("CUDA_DEVICE_ORDER=PCI_BUS_ID")));
        let mut s = decide(None, &env(&[("CUDA_VISIBLE_DEVICES", "1")])).unwrap();
        resolve(&mut s, &read, &mut |_| None, true);
        assert!(s.notes.is_empty());
        assert_eq!(s.measured, Some(vec![1]));
    }
}

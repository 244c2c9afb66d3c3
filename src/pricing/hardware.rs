//! Power by hardware model, offline: the tables in `data/hardware/`, embedded at build time, each row naming its
//! source. GPUs and accelerators by their board power (the vendor's datasheet: TDP or TBP, its highest
//! configurable figure), CPUs by their socket's TDP (CodeCarbon's `cpu_power.csv`, MIT).
//!
//! A model is asked by name as a person, a scheduler or the device itself says it: `H100-SXM`, `h100` (a Slurm
//! gres type), `NVIDIA H100 80GB HBM3` (NVML), `AMD EPYC 7763 64-Core Processor` (`/proc/cpuinfo`). Names are
//! compared in a normal form (upper case, letters and digits only, vendors' and marketing words left out); a GPU
//! row lists the other names it goes by. A name that fits no row is refused with the nearest one offered, never
//! guessed.

use std::sync::LazyLock;

use serde::Serialize;

use crate::error::Error;
use crate::model::{Coef, IndexMap, Request, Source};

const GPUS: &str = include_str!("../../data/hardware/gpus.csv");
const CPUS: &str = include_str!("../../data/hardware/cpu_power.csv");
/// The tables' sources and licences, as shipped.
pub const ATTRIBUTION: &str = include_str!("../../data/hardware/README.md");

/// One GPU or accelerator model.
#[derive(Debug, Clone, Serialize)]
pub struct Gpu {
    /// Its name in the table: `H100 SXM`.
    pub name: String,
    pub vendor: String,
    /// Its board power (TDP or TBP), W: the datasheet's highest configurable figure.
    pub board_power_w: f64,
    /// The other names it goes by (NVML's, Slurm gres types).
    pub aliases: Vec<String>,
    /// Those of them that name it only as written (`=` in the table): NVML's `NVIDIA H200` is the SXM part, but a
    /// scheduler's `h200` could be either form.
    #[serde(skip)]
    pub as_written: Vec<String>,
    /// The datasheet and what it says.
    pub source: String,
    /// The year of the datasheet.
    pub year: u16,
}

/// One CPU model.
#[derive(Debug, Clone, Serialize)]
pub struct Cpu {
    /// Its name as the table has it: `AMD EPYC 7763`.
    pub name: String,
    /// Its socket's thermal design power, W.
    pub tdp_w: f64,
}

/// The source every CPU row comes from.
pub const CPU_SOURCE: &str =
    "CodeCarbon 3.3.2 codecarbon/data/hardware/cpu_power.csv (MIT, (c) 2019 Mila, BCG Gamma, CometML, Haverford College)";

/// Words a model's name may carry that say nothing of which model it is.
const NOISE: &[&str] =
    &["NVIDIA", "AMD", "INTEL", "INSTINCT", "TESLA", "GEFORCE", "RADEON", "HABANA", "R", "TM", "CPU", "PROCESSOR", "ACCELERATOR", "GPU"];

/// A name's normal form: upper case, its words without the vendors' and marketing ones, letters and digits only;
/// a CPU's clock (`@ 2.45GHz`) and core count (`64-Core`) left out.
pub fn normal(name: &str) -> String {
    let upper = name.to_ascii_uppercase();
    let cut = upper.split('@').next().unwrap_or("");
    cut.split_whitespace()
        .filter(|w| !w.ends_with("-CORE"))
        .flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|w| !w.is_empty() && !NOISE.contains(w))
        .collect::<Vec<_>>()
        .concat()
}

/// The GPU table, parsed once.
pub fn gpus() -> &'static [Gpu] {
    static T: LazyLock<Vec<Gpu>> = LazyLock::new(|| {
        GPUS.lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let f: Vec<&str> = l.splitn(6, ',').collect();
                assert_eq!(f.len(), 6, "data/hardware/gpus.csv: {l}");
                Gpu {
                    name: f[0].to_string(),
                    vendor: f[1].to_string(),
                    board_power_w: f[2].parse().unwrap_or_else(|_| panic!("data/hardware/gpus.csv: watts in {l}")),
                    aliases: f[3]
                        .split(';')
                        .map(|a| a.trim().trim_start_matches('='))
                        .filter(|a| !a.is_empty())
                        .map(str::to_string)
                        .collect(),
                    as_written: f[3].split(';').filter_map(|a| a.trim().strip_prefix('=')).map(str::to_string).collect(),
                    year: f[4].parse().unwrap_or_else(|_| panic!("data/hardware/gpus.csv: year in {l}")),
                    source: f[5].trim_matches('"').to_string(),
                }
            })
            .collect()
    });
    &T
}

/// The CPU table, parsed once.
pub fn cpus() -> &'static [Cpu] {
    static T: LazyLock<Vec<Cpu>> = LazyLock::new(|| {
        CPUS.lines()
            .skip(1)
            .filter_map(|l| {
                let (name, tdp) = l.rsplit_once(',')?;
                Some(Cpu { name: name.trim_matches('"').trim().to_string(), tdp_w: tdp.trim().parse().ok()? })
            })
            .filter(|c| c.tdp_w > 0.0)
            .collect()
    });
    &T
}

/// The row `name` asks for, or why there is none (with the nearest name, where one is near).
fn find<'t, T>(
    what: &str,
    name: &str,
    rows: &'t [T],
    names: impl Fn(&'t T) -> Vec<&'t str>,
    watts: impl Fn(&T) -> f64,
) -> Result<&'t T, String> {
    // A name as the table writes it (any case) is its row, whatever other rows' names normalise to.
    let asked = name.trim();
    if let Some(r) = rows.iter().find(|r| names(r).iter().any(|x| x.eq_ignore_ascii_case(asked))) {
        return Ok(r);
    }
    // No name is longer than 200 characters: a longer one is compared (and shown) cut.
    let name: String = name.chars().take(200).collect();
    let name = name.as_str();
    let n = normal(name);
    if n.is_empty() {
        return Err(format!("{what} '{}' names no model", crate::text::clean(name)));
    }
    let exact = rows.iter().filter(|r| names(r).iter().any(|x| normal(x) == n)).collect::<Vec<_>>();
    match exact.as_slice() {
        [one] => return Ok(one),
        [] => {}
        // Rows alike but for their vendor's words (`AMD 7th Gen A10-9700 APU`, `7th Gen A10-9700 APU`) are one model
        // where they agree on its power.
        [first, rest @ ..] if rest.iter().all(|r| watts(r) == watts(first)) => return Ok(first),
        many => {
            let all: Vec<&str> = many.iter().map(|r| names(r)[0]).collect();
            return Err(format!("{what} '{}' is several models: {}", crate::text::clean(name), all.join(", ")));
        }
    }
    let every: Vec<(String, &str)> = rows.iter().flat_map(|r| names(r).into_iter().map(|x| (normal(x), names(r)[0]))).collect();
    // A family named without its form (`h100`: SXM, PCIe or NVL) is each of them: all are offered.
    let mut family: Vec<&str> = every.iter().filter(|(k, _)| k.starts_with(&n)).map(|(_, shown)| *shown).collect();
    family.dedup();
    let near = if (2..=6).contains(&family.len()) {
        format!("; it is one of {}: name which", family.iter().map(|f| format!("'{f}'")).collect::<Vec<_>>().join(", "))
    } else {
        crate::suggest::nearest(&n, every.iter().map(|(k, _)| k.as_str()))
            .and_then(|k| every.iter().find(|(x, _)| x == k))
            .map(|(_, shown)| format!("; did you mean '{shown}'?"))
            .unwrap_or_default()
    };
    Err(format!("{what} '{}' is not in exa's table (exa finops carbon hardware lists it){near}", crate::text::clean(name)))
}

/// The GPU `name` asks for.
pub fn gpu(name: &str) -> Result<&'static Gpu, String> {
    if let Some(g) = gpus().iter().find(|g| g.as_written.iter().any(|a| a.eq_ignore_ascii_case(name.trim()))) {
        return Ok(g);
    }
    find(
        "GPU model",
        name,
        gpus(),
        |g| std::iter::once(g.name.as_str()).chain(g.aliases.iter().filter(|a| !g.as_written.contains(a)).map(String::as_str)).collect(),
        |g| g.board_power_w,
    )
}

/// The CPU `name` asks for.
pub fn cpu(name: &str) -> Result<&'static Cpu, String> {
    find("CPU model", name, cpus(), |c| vec![c.name.as_str()], |c| c.tdp_w)
}

/// Puts the named models' power where a provider that takes the tables assumes one: a provider with
/// `gpu_usage_factor` takes its `gpu_tdp_watts` from the GPU model named (`--gpu-model`, else the model the devices
/// name themselves in a measurement), one with `cpu_usage_factor` its `cpu_tdp_watts` (a core's) from the CPU model's
/// TDP over its cores. A value set by hand wins, and says so; a model named to a provider that does not take the
/// tables is said, not used. A model asked by a person that is not in the table is refused; one a device named is
/// said, and the provider's default stands.
pub fn fill(provider: &str, coefs: &mut IndexMap<String, Coef>, req: &Request, notes: &mut Vec<String>) -> Result<(), Error> {
    let asked = req.gpu_model.as_deref().map(|n| (n, true)).or(req.gpu_name.as_deref().map(|n| (n, false)));
    if let Some((name, by_person)) = asked {
        if !coefs.contains_key("gpu_usage_factor") || !coefs.contains_key("gpu_tdp_watts") {
            if by_person {
                notes.push(format!(
                    "--gpu-model: provider '{provider}' does not price by hardware model; its own GPU power is used (--provider hardware-aware does)"
                ));
            }
        } else {
            match gpu(name) {
                Ok(g) => put(
                    coefs,
                    notes,
                    "gpu_tdp_watts",
                    g.board_power_w,
                    &format!("the {} {}'s board power (its {} datasheet; exa finops carbon hardware cites it)", g.vendor, g.name, g.year),
                ),
                Err(e) if by_person => return Err(Error::Usage(format!("--gpu-model: {e}"))),
                Err(_) => notes.push(format!(
                    "the GPUs name themselves '{}', which is not in exa's hardware table: the provider's gpu_tdp_watts stands",
                    crate::text::clean(name)
                )),
            }
        }
    }
    let takes_cpu = coefs.contains_key("cpu_usage_factor") && coefs.contains_key("cpu_tdp_watts");
    if let (None, Some((name, cores)), true) = (&req.cpu_model, &req.cpu_name, takes_cpu) {
        match (cpu(name), cores) {
            (Ok(c), Some(cores)) => {
                put(
                    coefs,
                    notes,
                    "cpu_tdp_watts",
                    c.tdp_w / cores,
                    &format!("the {}'s TDP, {} W, over its {cores} cores", c.name, c.tdp_w),
                );
            }
            (Ok(c), None) => notes.push(format!(
                "the node's CPU is the {}, but a virtual machine's CPUs are not its socket's (or the node says none a socket): the \
                 provider's cpu_tdp_watts stands",
                c.name
            )),
            (Err(_), _) => notes.push(format!(
                "the node names its CPU '{}', which is not in exa's hardware table: the provider's cpu_tdp_watts stands",
                crate::text::clean(name)
            )),
        }
    }
    if let Some((name, cores)) = &req.cpu_model {
        if !takes_cpu {
            notes.push(format!(
                "--cpu-model: provider '{provider}' does not price by hardware model; its own CPU power is used (--provider hardware-aware does)"
            ));
        } else {
            let c = cpu(name).map_err(|e| Error::Usage(format!("--cpu-model: {e}")))?;
            let cores = cores.ok_or_else(|| {
                Error::Usage(format!(
                    "--cpu-model {}: give --cpu-cores, its cores a socket: the table has the socket's TDP ({} W), and a core is a part of it",
                    c.name, c.tdp_w
                ))
            })?;
            put(coefs, notes, "cpu_tdp_watts", c.tdp_w / cores, &format!("the {}'s TDP, {} W, over its {cores} cores", c.name, c.tdp_w));
        }
    }
    Ok(())
}

/// Sets a coefficient from the tables, unless a person set it; says which.
fn put(coefs: &mut IndexMap<String, Coef>, notes: &mut Vec<String>, name: &str, watts: f64, what: &str) {
    let watts = crate::num::tidy(watts);
    let coef = coefs.get_mut(name).expect("checked by the caller");
    // A measured power is what was drawn: the table has nothing to say beside it.
    if coef.source == Source::Measured {
        return;
    }
    if matches!(coef.source, Source::Flag | Source::Config | Source::Env(_)) {
        notes.push(format!("{name} is set ({}), and wins over {what}, {watts} W", coef.source));
        return;
    }
    *coef = Coef { value: watts, source: Source::Hardware };
    notes.push(format!("{name} {watts} W: {what}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model the devices name themselves (a measurement's) is used where it fits a row and said where it does not,
    /// never refused; one a person names must fit; a value set by hand wins.
    #[test]
    fn the_tables_fill_a_providers_power_by_the_model_named() {
        let coefs = |tdp_source: Source| -> IndexMap<String, Coef> {
            [("gpu_tdp_watts", 400.0, tdp_source), ("gpu_usage_factor", 1.0, Source::Default)]
                .into_iter()
                .map(|(n, v, s)| (n.to_string(), Coef { value: v, source: s }))
                .collect()
        };
        let (mut c, mut notes) = (coefs(Source::Default), Vec::new());
        let device = Request { gpu_name: Some("NVIDIA H100 80GB HBM3".into()), ..Request::default() };
        fill("hardware-aware", &mut c, &device, &mut notes).unwrap();
        assert_eq!(c["gpu_tdp_watts"], Coef { value: 700.0, source: Source::Hardware });
        let (mut c, mut notes) = (coefs(Source::Default), Vec::new());
        let odd = Request { gpu_name: Some("NVIDIA Hopper Prototype".into()), ..Request::default() };
        fill("hardware-aware", &mut c, &odd, &mut notes).unwrap();
        assert_eq!((c["gpu_tdp_watts"].value, notes.len()), (400.0, 1), "{notes:?}");
        let asked = Request { gpu_model: Some("NVIDIA Hopper Prototype".into()), ..Request::default() };
        assert!(matches!(fill("hardware-aware", &mut coefs(Source::Default), &asked, &mut Vec::new()), Err(Error::Usage(_))));
        let (mut c, mut notes) = (coefs(Source::Flag), Vec::new());
        fill("hardware-aware", &mut c, &Request { gpu_model: Some("L4".into()), ..Request::default() }, &mut notes).unwrap();
        assert_eq!(c["gpu_tdp_watts"].source, Source::Flag);
        assert!(notes[0].contains("wins over"), "{notes:?}");
    }

    #[test]
    fn a_model_is_found_by_the_names_people_schedulers_and_devices_give_it() {
        for name in ["H100 SXM", "h100-sxm", "NVIDIA H100 80GB HBM3", "H100_SXM5"] {
            assert_eq!(gpu(name).map(|g| g.name.as_str()), Ok("H100 SXM"), "{name}");
        }
        assert_eq!(gpu("NVIDIA L4").map(|g| g.board_power_w), Ok(72.0));
        assert_eq!(gpu("AMD Instinct MI300X").map(|g| g.board_power_w), Ok(750.0));
        // A family without its form is not guessed: its forms are offered.
        let e = gpu("h100").unwrap_err();
        assert!(e.contains("one of 'H100 SXM', 'H100 PCIe', 'H100 NVL'"), "{e}");
        let e = gpu("H101 SXM").unwrap_err();
        assert!(e.contains("did you mean 'H100 SXM'"), "{e}");
        assert!(gpu("!!").unwrap_err().contains("names no model"));
        assert_eq!(cpu("AMD EPYC 7763 64-Core Processor").map(|c| c.tdp_w), Ok(280.0));
        assert_eq!(cpu("Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz").map(|c| c.tdp_w), Ok(270.0));
        assert!(cpu("EPYC 7764").unwrap_err().contains("did you mean"));
        // Every row is read, and no two GPU rows answer to one name.
        assert!(cpus().len() > 4_800 && gpus().len() >= 25);
        // NVML's name for the SXM part, as written; a scheduler's bare `h200` is either form.
        assert_eq!(gpu("NVIDIA H200").map(|g| g.name.as_str()), Ok("H200 SXM"));
        assert!(gpu("h200").unwrap_err().contains("one of 'H200 SXM', 'H200 NVL'"));
        for g in gpus() {
            for n in std::iter::once(&g.name).chain(&g.aliases) {
                assert_eq!(gpu(n).map(|x| x.name.as_str()), Ok(g.name.as_str()), "{n}");
            }
        }
    }
}

//! What a carbon estimate adds beside the provider's figures: the hardware's
//! embodied carbon, amortised over the time the work held it, and the water
//! the work used. Both are exa's own terms, the same whatever the provider:
//! the provider's documented `kwh` and `co2e_g` stay exactly what it
//! computed, and `embodied_co2e_g` is never added to `co2e_g`.
//!
//! Embodied carbon follows the SCI specification's `M = TE × (TiR / EL) ×
//! (RR / ToR)`: the GPUs' own manufacturing carbon for the GPU-hours, plus
//! the host's (the node without its GPUs) for the node-hours the work held,
//! its share of the node by GPUs or by cores, whichever is larger, over the
//! hardware's expected life. The defaults are Cloud Carbon Footprint's
//! (Teads') server figures; every term is a coefficient, set in the config
//! (`finops.carbon.coefficients`) or with `--set` like any other, and the
//! figure carries a band of its own (`embodied_uncertainty`).
//!
//! Water is reported only where a site's water use effectiveness is set
//! (`wue_l_per_kwh`, litres per kWh of IT energy, The Green Grid's WUE),
//! optionally with the water intensity of the electricity itself
//! (`grid_water_l_per_kwh`, litres per kWh drawn).

use crate::model::IndexMap;

use crate::error::Error;
use crate::model::{Coef, CoefficientOverride, Source};
use crate::num::tidy;

/// Hours in a year, as the SCI specification's own example counts them (365 days; CCF's tables use 360).
pub const HOURS_PER_YEAR: f64 = 8760.0;

/// One of exa's own terms: its name, default (none: not used until set), what it is, and where the default comes from.
pub struct Term {
    pub name: &'static str,
    pub default: Option<f64>,
    pub what: &'static str,
    pub source: &'static str,
    /// The least value it may take, and whether that value itself is allowed.
    min: (f64, bool),
}

/// Every term, in the order an estimate lists them.
pub const TERMS: &[Term] = &[
    Term {
        name: "embodied_gpu_kg",
        default: Some(150.0),
        what: "manufacturing carbon of one GPU card, kgCO2e",
        source: "CCF's GPU_MANUFACTURING_EMISSIONS (ccf-coefficients ccfcoef/constants.py)",
        min: (0.0, true),
    },
    Term {
        name: "embodied_host_kg",
        default: Some(2499.125),
        what: "manufacturing carbon of the node without its GPUs, kgCO2e",
        source: "CCF's server: base 1000 + a second socket 100 + (1024 - 16) GB DRAM x 533/384 (ccf-coefficients ccfcoef/constants.py)",
        min: (0.0, true),
    },
    Term {
        name: "embodied_node_gpus",
        default: Some(8.0),
        what: "GPUs in a node: a GPU-hour holds this share of the node",
        source: "the 8-GPU server of CCF's worked example",
        min: (0.0, false),
    },
    Term {
        name: "embodied_node_cores",
        default: Some(64.0),
        what: "CPU cores in a node: a CPU-hour holds this share of the node",
        source: "exa's assumption: two sockets of 32 cores (CCF's server has 2 sockets and gives no core count)",
        min: (0.0, false),
    },
    Term {
        name: "embodied_lifetime_years",
        default: Some(4.0),
        what: "expected life of the hardware, years (365 days)",
        source: "CCF's RACK_SERVER_LIFESPAN (ccf-coefficients ccfcoef/constants.py)",
        min: (0.0, false),
    },
    Term {
        name: "embodied_uncertainty",
        default: Some(0.5),
        what: "relative uncertainty of the embodied figure (0.5 is ±50%)",
        source: "exa's judgement: published LCAs of one GPU differ by more than half (181 kg for an A100 PCIe card alone, 318 kg with its host share)",
        min: (0.0, true),
    },
    Term {
        name: "wue_l_per_kwh",
        default: None,
        what: "the site's water use effectiveness, litres per kWh of IT energy",
        source: "none: the site's own figure",
        min: (0.0, true),
    },
    Term {
        name: "grid_water_l_per_kwh",
        default: None,
        what: "water intensity of the electricity drawn, litres per kWh",
        source: "none: the grid's own figure",
        min: (0.0, true),
    },
];

/// A GPU in exa's table of embodied carbon: its name, what it is, its figure and whether the figure holds
/// its share of the host (the host's term is then 0 for its GPU-hours), and the figure's source.
#[derive(Debug)]
pub struct GpuEntry {
    pub name: &'static str,
    pub what: &'static str,
    pub kg: f64,
    pub with_host: bool,
    pub source: &'static str,
}

/// The GPUs exa has a published figure for (`finops.carbon.embodied_gpu`; `measure` matches its GPUs' names).
pub const GPUS: &[GpuEntry] = &[
    GpuEntry {
        name: "generic",
        what: "a GPU card",
        kg: 150.0,
        with_host: false,
        source: "CCF's GPU_MANUFACTURING_EMISSIONS (ccf-coefficients ccfcoef/constants.py)",
    },
    GpuEntry {
        name: "a100-pcie-40gb",
        what: "an NVIDIA A100 PCIe 40 GB card",
        kg: 181.0,
        with_host: false,
        source: "the ADEME/Hubblo parametric model of Falk et al. 2025 (arXiv:2509.00093), cradle to grave less use",
    },
    GpuEntry {
        name: "a100-with-host",
        what: "an NVIDIA A100 with its eighth of an 8-GPU host",
        kg: 318.0,
        with_host: true,
        source: "Chien et al., HotCarbon '23 (1/8 of an 8xA100 instance's embodied emissions)",
    },
];

/// The table's entry named `name`, or why there is none.
pub fn gpu_entry(name: &str) -> Result<&'static GpuEntry, String> {
    GPUS.iter().find(|g| g.name == name).ok_or_else(|| {
        let names: Vec<&str> = GPUS.iter().map(|g| g.name).collect();
        format!("finops.carbon.embodied_gpu '{}' is not in exa's table ({})", crate::text::clean(name), names.join(", "))
    })
}

/// The entry for a GPU that names itself `device` (NVML's or nvidia-smi's name), where exactly one fits.
pub fn gpu_for_device(device: &str) -> Option<&'static GpuEntry> {
    let d = device.to_ascii_uppercase().replace([' ', '_'], "-");
    (d.contains("A100") && d.contains("PCIE") && d.contains("40GB")).then(|| &GPUS[1])
}

/// Whether `name` is one of exa's own terms, which every carbon estimate takes beside its provider's coefficients.
pub fn is_term(name: &str) -> bool {
    TERMS.iter().any(|t| t.name == name)
}

/// How the embodied figure is made, as an estimate states it.
pub const METHOD: &str = "SCI's M = TE x (TiR / EL) x (RR / ToR): (gpu_hours x embodied_gpu_kg + node_hours x embodied_host_kg) \
                          x 1000 / (embodied_lifetime_years x 8760 h), node_hours = max(gpu_hours / embodied_node_gpus, \
                          cpu_hours / embodied_node_cores); reported beside co2e_g, never added to it";

/// The terms' values and where each came from: the defaults (the GPU table's entry for the GPU-card and host
/// terms, when one is given), then the config, then the request's overrides.
pub fn terms(
    config: &IndexMap<String, f64>,
    overrides: &[CoefficientOverride],
    gpu: Option<&GpuEntry>,
) -> Result<IndexMap<String, Coef>, Error> {
    let mut out = IndexMap::default();
    for t in TERMS {
        let default = match (t.name, gpu) {
            ("embodied_gpu_kg", Some(g)) => Some(g.kg),
            ("embodied_host_kg", Some(g)) if g.with_host => Some(0.0),
            _ => t.default,
        };
        let given = overrides
            .iter()
            .find(|o| o.name == t.name)
            .map(|o| (o.value, Source::Flag, o.set_by.clone()))
            .or_else(|| config.get(t.name).map(|v| (*v, Source::Config, format!("finops.carbon.coefficients.{}", t.name))));
        let coef = match given {
            Some((v, source, by)) => {
                let (min, inclusive) = t.min;
                if !v.is_finite() || v < min || (!inclusive && v == min) {
                    let bound = if inclusive { "0 or more" } else { "more than 0" };
                    return Err(Error::Usage(format!("{by}: {} ({}) must be a finite number, {bound}, not {v}", t.name, t.what)));
                }
                Coef { value: v, source }
            }
            None => match default {
                Some(v) => Coef { value: v, source: Source::Default },
                None => continue,
            },
        };
        out.insert(t.name.to_string(), coef);
    }
    Ok(out)
}

/// How the terms were used, as an estimate says it: the method, and where each default came from.
pub fn said(terms: &IndexMap<String, Coef>, gpu: Option<&GpuEntry>) -> crate::model::Footprint {
    let sources = TERMS
        .iter()
        .filter(|t| terms.get(t.name).is_some_and(|c| c.source == Source::Default))
        .map(|t| {
            let text = match (t.name, gpu) {
                ("embodied_gpu_kg", Some(g)) => format!("{} ({}, exa's GPU table): {}", t.what, g.what, g.source),
                ("embodied_host_kg", Some(g)) if g.with_host => format!("{}: 0, its share is in {}'s figure", t.what, g.name),
                _ => format!("{}: {}", t.what, t.source),
            };
            (t.name, text)
        })
        .collect();
    crate::model::Footprint { method: METHOD, defaults: std::sync::Arc::new(sources), gpu: gpu.map(|g| g.name) }
}

/// What the terms add to an estimate: outputs (`embodied_co2e_g`, and `water_l` when a WUE is set) and
/// the embodied figure's band.
pub struct Added {
    pub outputs: Vec<(&'static str, f64)>,
    pub range: Option<[f64; 2]>,
    /// The embodied figure's band is `num::band` of these: the figure, and its uncertainty.
    pub made: [f64; 2],
}

/// The embodied carbon of `gpu_hours` and `cpu_hours`, and the water of `kwh` (the facility's energy; its
/// IT part is `kwh / pue`), at the terms' values.
pub fn compute(terms: &IndexMap<String, Coef>, gpu_hours: f64, cpu_hours: f64, kwh: Option<f64>, pue: Option<f64>) -> Result<Added, Error> {
    let v = |n: &str| terms.get(n).map(|c| c.value);
    let get = |n: &str| v(n).unwrap_or(0.0);
    let node_hours = (gpu_hours / get("embodied_node_gpus")).max(cpu_hours / get("embodied_node_cores"));
    let life_h = get("embodied_lifetime_years") * HOURS_PER_YEAR;
    let m = (gpu_hours * get("embodied_gpu_kg") + node_hours * get("embodied_host_kg")) * 1000.0 / life_h;
    if !m.is_finite() {
        return Err(Error::Failed(format!(
            "embodied_co2e_g overflowed (not a finite number) for {gpu_hours} GPU-hours and {cpu_hours} CPU-hours"
        )));
    }
    let u = get("embodied_uncertainty");
    // The band is the figure's as shown (tidied), as a provider's bands are its outputs': made from the figure before
    // it was tidied, half of them differed from it in the 15th digit (at u = 0.5, every odd last digit halves to a
    // tie), and a store could not make them again from the figure it keeps.
    let m = tidy(m);
    let mut outputs = vec![("embodied_co2e_g", m)];
    let (wue, grid) = (v("wue_l_per_kwh"), v("grid_water_l_per_kwh"));
    if let (Some(kwh), true) = (kwh, wue.is_some() || grid.is_some()) {
        let it_kwh = kwh / pue.filter(|p| *p > 0.0).unwrap_or(1.0);
        let water = it_kwh * wue.unwrap_or(0.0) + kwh * grid.unwrap_or(0.0);
        if !water.is_finite() {
            return Err(Error::Failed(format!("water_l overflowed (not a finite number) for {kwh} kWh")));
        }
        outputs.push(("water_l", tidy(water)));
    }
    let range = Some(crate::num::band(m, u)).filter(|b| b[1].is_finite());
    Ok(Added { outputs, range, made: [m, u] })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, f64)]) -> IndexMap<String, Coef> {
        let overrides: Vec<CoefficientOverride> = pairs.iter().map(|(n, v)| CoefficientOverride::new(*n, *v, "--set")).collect();
        terms(&IndexMap::default(), &overrides, None).unwrap()
    }

    fn embodied(a: &Added) -> f64 {
        a.outputs.iter().find(|(k, _)| *k == "embodied_co2e_g").unwrap().1
    }

    #[test]
    fn a_gpu_hour_on_ccfs_example_server_is_its_eighth_share() {
        // CCF's example server: 2 sockets, 1 TB, 8 GPUs = 3699.125 kg over 4 years: 105.6 g per node-hour,
        // 13.2 g per GPU-hour.
        let a = compute(&with(&[]), 1.0, 0.0, None, None).unwrap();
        let want = 3699.125 * 1000.0 / (4.0 * 8760.0) / 8.0;
        assert!((embodied(&a) - want).abs() < 1e-9, "{}", embodied(&a));
        assert!((embodied(&a) - 13.196).abs() < 0.001);
        let [lo, hi] = a.range.unwrap();
        assert!((lo - want * 0.5).abs() < 1e-9 && (hi - want * 1.5).abs() < 1e-9);
        assert_eq!(a.outputs.len(), 1, "no water until a WUE is set");
    }

    #[test]
    fn the_embodied_band_is_the_shown_figures_band() {
        // The docs' example (docs/json.md): 35.6610302511416 g at ± 50%. Its upper bound, 53.4915453767124, is a tie
        // at the 16th digit; made from the figure before it was tidied, the band read 53.4915453767123.
        for gpu_hours in [1.0, 2.7, 3.1, 10.0 / 3.0, 123.456] {
            let a = compute(&with(&[]), gpu_hours, 0.0, None, None).unwrap();
            let m = embodied(&a);
            assert_eq!(a.range, Some(crate::num::band(m, 0.5)), "{gpu_hours} GPU-hours");
            assert_eq!(a.made.map(f64::to_bits), [m.to_bits(), 0.5f64.to_bits()]);
        }
    }

    #[test]
    fn the_sci_specifications_own_example() {
        // 1000 kg over 4 years, the whole machine reserved for an hour: about 28 g.
        let t = with(&[("embodied_host_kg", 1000.0), ("embodied_gpu_kg", 0.0), ("embodied_node_cores", 1.0)]);
        let a = compute(&t, 0.0, 1.0, None, None).unwrap();
        assert!((embodied(&a) - 1_000_000.0 / 35_040.0).abs() < 1e-9);
        assert_eq!(embodied(&a).round(), 29.0);
    }

    #[test]
    fn the_larger_share_of_the_node_counts_once() {
        // 2 GPUs and 32 cores for an hour: a quarter of the node by GPUs, a half by cores.
        let a = compute(&with(&[("embodied_gpu_kg", 0.0)]), 2.0, 32.0, None, None).unwrap();
        assert!((embodied(&a) - 0.5 * 2_499_125.0 / 35_040.0).abs() < 1e-6);
    }

    #[test]
    fn water_is_the_it_energy_at_the_sites_wue_plus_the_grids() {
        let a = compute(&with(&[("wue_l_per_kwh", 1.8), ("grid_water_l_per_kwh", 2.0)]), 1.0, 0.0, Some(12.0), Some(1.2)).unwrap();
        let water = a.outputs.iter().find(|(k, _)| *k == "water_l").unwrap().1;
        assert!((water - (10.0 * 1.8 + 12.0 * 2.0)).abs() < 1e-9);
    }

    #[test]
    fn a_term_out_of_bounds_is_refused_by_name() {
        for (name, v) in [("embodied_lifetime_years", 0.0), ("embodied_gpu_kg", -1.0), ("wue_l_per_kwh", f64::NAN)] {
            let e = terms(&IndexMap::default(), &[CoefficientOverride::new(name, v, "--set")], None).unwrap_err();
            assert!(e.to_string().contains(name), "{e}");
        }
        let mut config = IndexMap::default();
        config.insert("embodied_node_gpus".to_string(), 0.0);
        let e = terms(&config, &[], None).unwrap_err().to_string();
        assert!(e.contains("finops.carbon.coefficients.embodied_node_gpus"), "{e}");
    }

    #[test]
    fn a_gpu_from_the_table_sets_the_card_and_its_host() {
        let pcie = gpu_for_device("NVIDIA A100-PCIE-40GB").unwrap();
        assert_eq!((pcie.name, pcie.kg), ("a100-pcie-40gb", 181.0));
        assert!(gpu_for_device("NVIDIA A100-SXM4-80GB").is_none() && gpu_for_device("NVIDIA H100 80GB HBM3").is_none());
        let t = terms(&IndexMap::default(), &[], Some(gpu_entry("a100-with-host").unwrap())).unwrap();
        assert_eq!((t["embodied_gpu_kg"].value, t["embodied_host_kg"].value), (318.0, 0.0));
        let a = compute(&t, 1.0, 0.0, None, None).unwrap();
        assert!((embodied(&a) - 318_000.0 / 35_040.0).abs() < 1e-9);
        // A value set wins over the table's.
        let set = [CoefficientOverride::new("embodied_gpu_kg", 200.0, "--set")];
        assert_eq!(terms(&IndexMap::default(), &set, Some(pcie)).unwrap()["embodied_gpu_kg"].value, 200.0);
        assert!(gpu_entry("h100").unwrap_err().contains("generic, a100-pcie-40gb, a100-with-host"));
    }

    #[test]
    fn huge_hours_are_an_error_not_infinity() {
        assert!(compute(&with(&[]), f64::MAX, f64::MAX, None, None).is_err());
    }
}

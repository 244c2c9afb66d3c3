//! The node's platform power from its BMC over Redfish (DMTF DSP0266); `node` reads it as one of its sources.
//!
//! Given the chassis's URL (`https://bmc/redfish/v1/Chassis/1U`), the source follows the chassis's own links,
//! in this order: `EnvironmentMetrics` (`PowerWatts.Reading`: the chassis's input power), else
//! `PowerSubsystem` (every power supply's `Metrics.InputPowerWatts.Reading`, summed: a supply that does not
//! answer fails the reading, never a partial sum), else the older `Power` resource
//! (`PowerControl[0].PowerConsumedWatts`). `EnergykWh` is not used: BMCs keep it in whole watt-hours or
//! coarser, too coarse for a run of minutes; the watts are integrated by the trapezoid (`node::Meter`).
//!
//! Credentials come from a file (`user:password` on its first line, the file readable by its owner and group alone)
//! and go only over TLS, checked against the site's CA when one is given; plain HTTP is taken for a BMC on
//! loopback alone (a local proxy or emulator). Every request has a deadline and a capped body.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::http::{self, Request};
use crate::text::redact_url;

/// The largest Redfish document read: a chassis with every link is a few kilobytes.
const MAX_BODY: u64 = 1 << 20;

/// The most power supplies summed: a chassis has a handful; more is not a chassis's (each is a request a reading).
const MOST_SUPPLIES: usize = 16;

/// Where the BMC is, and how to reach it (`node.redfish_*` in the config, `EXAMLOPS_REDFISH_*`).
#[derive(Debug, Clone, PartialEq)]
pub struct Conf {
    /// The chassis's URL.
    pub url: String,
    /// A file holding `user:password`.
    pub credentials_file: Option<PathBuf>,
    /// The site's CA (PEM), trusted in place of the web's.
    pub ca_file: Option<PathBuf>,
}

/// How the platform's power is read.
#[derive(Debug, Clone)]
enum Way {
    /// `EnvironmentMetrics`' `PowerWatts`.
    Environment(String),
    /// Each supply's `Metrics`' `InputPowerWatts`, summed.
    Supplies(Vec<String>),
    /// The older `Power` resource's first `PowerControl`.
    Power(String),
}

/// The BMC's power reading over Redfish.
pub struct Redfish {
    chassis: String,
    basic: Option<(String, String)>,
    ca_pem: Option<Arc<Vec<u8>>>,
    deadline: Duration,
    way: Way,
    /// While the way is being found: when the whole search must be over (every link followed counts).
    search_until: Option<std::time::Instant>,
}

/// How many single requests' deadlines the search for the way may take in all, before a run starts.
const SEARCH_DEADLINES: u32 = 4;

/// Reads `user:password` from `path`, which no one but its owner (and its group: a Kubernetes secret mounted
/// with an `fsGroup` is 0440) may read.
fn credentials(path: &Path) -> Result<(String, String), String> {
    use std::os::unix::fs::MetadataExt;
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("the Redfish credentials file {shown}: {e}"))?;
    if meta.mode() & 0o027 != 0 {
        return Err(format!("the Redfish credentials file {shown} may be read by others (mode {:o}): chmod 600 it", meta.mode() & 0o777));
    }
    let text = crate::files::read_regular_text(path, 4096).map_err(|e| format!("the Redfish credentials file {shown}: {e}"))?;
    let line = text.lines().next().unwrap_or_default().trim_end_matches('\r');
    match line.split_once(':') {
        Some((user, password)) if !user.is_empty() => Ok((user.to_string(), password.to_string())),
        _ => Err(format!("the Redfish credentials file {shown} does not hold user:password on its first line")),
    }
}

/// Whether `url` may carry credentials: HTTPS, or HTTP to this machine alone.
fn safe_for_credentials(url: &reqwest::Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    url.scheme() == "https"
        || host == "localhost"
        || host.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|a| a.is_loopback())
}

impl Redfish {
    /// Finds how the chassis at `conf.url` reports its power.
    pub fn open(conf: &Conf, deadline: Duration) -> Result<Redfish, String> {
        let parsed = reqwest::Url::parse(&conf.url).map_err(|e| format!("'{}' is not a URL ({e})", redact_url(&conf.url)))?;
        if !safe_for_credentials(&parsed) && (conf.credentials_file.is_some() || parsed.scheme() != "https") {
            return Err(format!("{} is not HTTPS: the BMC is read over TLS (plain HTTP only on loopback)", redact_url(&conf.url)));
        }
        let basic = conf.credentials_file.as_deref().map(credentials).transpose()?;
        let ca_pem = conf
            .ca_file
            .as_deref()
            .map(|p| crate::files::read_regular_text(p, 1 << 20).map_err(|e| format!("the Redfish CA file {}: {e}", p.display())))
            .transpose()?
            .map(|t| Arc::new(t.into_bytes()));
        let search_until = Some(std::time::Instant::now() + deadline * SEARCH_DEADLINES);
        let mut r = Redfish { chassis: conf.url.clone(), basic, ca_pem, deadline, way: Way::Power(String::new()), search_until };
        r.way = r.find_way()?;
        r.search_until = None;
        Ok(r)
    }

    fn get(&self, url: &str) -> Result<Value, String> {
        let left = match self.search_until {
            Some(until) => until.saturating_duration_since(std::time::Instant::now()),
            None => self.deadline,
        };
        if left.is_zero() {
            return Err(format!(
                "the BMC at {} did not show its power within {:.1} s",
                redact_url(&self.chassis),
                (self.deadline * SEARCH_DEADLINES).as_secs_f64()
            ));
        }
        self.get_within(url, left.min(self.deadline))
    }

    /// GETs `url`, a resource of the chassis's own BMC: a link to anywhere else (another host, port or scheme) is
    /// refused before anything is sent, so the credentials go only where they were given for.
    fn get_within(&self, url: &str, deadline: Duration) -> Result<Value, String> {
        let (to, home) = (reqwest::Url::parse(url), reqwest::Url::parse(&self.chassis));
        let same = |a: &reqwest::Url, b: &reqwest::Url| {
            a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.port_or_known_default() == b.port_or_known_default()
        };
        if !to.as_ref().ok().zip(home.as_ref().ok()).is_some_and(|(a, b)| same(a, b)) {
            return Err(format!("{} links to {}, another host: not followed", redact_url(&self.chassis), redact_url(url)));
        }
        let mut req = Request::new(url, deadline, MAX_BODY);
        req.basic.clone_from(&self.basic);
        req.ca_pem.clone_from(&self.ca_pem);
        req.headers.push(("Accept", "application/json".into()));
        let shown = redact_url(url);
        let answer = http::send(req).map_err(|e| format!("{shown}: {e}"))?;
        match answer.status {
            200 => serde_json::from_slice(&answer.body).map_err(|e| format!("{shown}: not JSON ({e})")),
            401 | 403 => Err(format!("{shown}: HTTP {} (the BMC refused the credentials)", answer.status)),
            s => Err(format!("{shown}: HTTP {s}")),
        }
    }

    /// A link of `doc` (`{"@odata.id": "/redfish/v1/..."}`) as a URL on the chassis's host.
    fn link(&self, doc: &Value, key: &str) -> Option<String> {
        let path = doc.get(key)?.get("@odata.id")?.as_str()?;
        reqwest::Url::parse(&self.chassis).ok()?.join(path).ok().map(|u| u.to_string())
    }

    fn find_way(&self) -> Result<Way, String> {
        let chassis = self.get(&self.chassis)?;
        if let Some(url) = self.link(&chassis, "EnvironmentMetrics") {
            if self.get(&url).is_ok_and(|d| environment_watts(&d).is_ok()) {
                return Ok(Way::Environment(url));
            }
        }
        if let Some(url) = self.link(&chassis, "PowerSubsystem") {
            if let Some(metrics) = self.supplies(&url) {
                return Ok(Way::Supplies(metrics));
            }
        }
        if let Some(url) = self.link(&chassis, "Power") {
            let doc = self.get(&url)?;
            power_watts(&doc)?;
            return Ok(Way::Power(url));
        }
        Err(format!(
            "the chassis {} links no EnvironmentMetrics with PowerWatts, PowerSubsystem with supplies' input power, or Power",
            redact_url(&self.chassis)
        ))
    }

    /// Every supply's metrics URL, when each answers its input power.
    fn supplies(&self, subsystem: &str) -> Option<Vec<String>> {
        let collection = self.link(&self.get(subsystem).ok()?, "PowerSupplies")?;
        let members = self.get(&collection).ok()?;
        let mut metrics = Vec::new();
        let members = members.get("Members")?.as_array()?;
        if members.len() > MOST_SUPPLIES {
            return None;
        }
        for m in members {
            let supply = reqwest::Url::parse(&self.chassis).ok()?.join(m.get("@odata.id")?.as_str()?).ok()?;
            metrics.push(self.link(&self.get(supply.as_str()).ok()?, "Metrics")?);
        }
        // One reading of them all, timed: a way whose reading cannot end within one deadline is not taken.
        let began = std::time::Instant::now();
        for url in &metrics {
            supply_watts(&self.get(url).ok()?).ok()?;
        }
        (!metrics.is_empty() && began.elapsed() < self.deadline).then_some(metrics)
    }
}

/// Watts as a BMC says them: a number, not below zero (the caller holds them to what a node draws).
fn watts(w: Option<f64>, what: &str) -> Result<f64, String> {
    match w {
        Some(w) if w >= 0.0 && w.is_finite() => Ok(w),
        Some(w) => Err(format!("{what} reads {w} W: not a power")),
        None => Err(format!("no {what}")),
    }
}

/// A `{"Reading": W}` sensor excerpt's watts.
fn reading(v: Option<&Value>, what: &str) -> Result<f64, String> {
    watts(v.and_then(|s| s.get("Reading")).and_then(Value::as_f64), &format!("{what}.Reading"))
}

/// The chassis's input power from its `EnvironmentMetrics`.
pub fn environment_watts(doc: &Value) -> Result<f64, String> {
    reading(doc.get("PowerWatts"), "PowerWatts")
}

/// One supply's input power from its `PowerSupplyMetrics`.
pub fn supply_watts(doc: &Value) -> Result<f64, String> {
    reading(doc.get("InputPowerWatts"), "InputPowerWatts")
}

/// The platform's power from the older `Power` resource: its first `PowerControl`'s `PowerConsumedWatts`.
pub fn power_watts(doc: &Value) -> Result<f64, String> {
    let w = doc.get("PowerControl").and_then(|c| c.get(0)).and_then(|c| c.get("PowerConsumedWatts")).and_then(Value::as_f64);
    watts(w, "PowerControl[0].PowerConsumedWatts")
}

impl Redfish {
    /// Where it reads, and which way.
    pub fn describe(&self) -> String {
        let how = match &self.way {
            Way::Environment(_) => "EnvironmentMetrics PowerWatts".to_string(),
            Way::Supplies(s) => format!("the input power of its {} power supplies", s.len()),
            Way::Power(_) => "Power PowerConsumedWatts".to_string(),
        };
        format!("Redfish {} ({how})", redact_url(&self.chassis))
    }

    /// The platform's watts now.
    pub fn watts(&self) -> Result<f64, String> {
        Ok(match &self.way {
            Way::Environment(url) => environment_watts(&self.get(url)?)?,
            Way::Power(url) => power_watts(&self.get(url)?)?,
            // One deadline for the whole reading, however many supplies: a slow BMC holds a reading no longer.
            Way::Supplies(urls) => {
                let until = std::time::Instant::now() + self.deadline;
                let mut sum = 0.0;
                for u in urls {
                    let left = until.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() {
                        return Err(format!("the supplies did not all answer within {:.1} s", self.deadline.as_secs_f64()));
                    }
                    sum += supply_watts(&self.get_within(u, left)?)?;
                }
                sum
            }
        })
    }
}

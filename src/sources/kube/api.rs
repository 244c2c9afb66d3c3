//! The pods on this node, as the Kubernetes API says them: `GET /api/v1/pods?fieldSelector=spec.nodeName=<node>`
//! with the pod's service-account token (read again each time: a projected token rotates) and the cluster's CA.
//! It needs `list` on pods, nothing more (deploy/kubernetes/chargeback's ClusterRole). Only each pod's metadata is
//! kept: its UID, namespace, name, labels and annotations.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::sources::http::{self, Request};

/// The largest answer read: a node's 110 pods' full objects are a few megabytes.
pub const MAX_ANSWER: u64 = 64 << 20;

/// Where a service account's token and the cluster's CA are mounted in a pod.
pub const SERVICE_ACCOUNT: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// A pod, as a chargeback labels its energy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PodMeta {
    /// Its UID.
    pub uid: String,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
    /// Its annotations.
    pub annotations: BTreeMap<String, String>,
}

/// The API server, and who exa is to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Api {
    /// Its base URL (`https://10.96.0.1:443`).
    pub url: String,
    /// The file the bearer token is read from, where there is one.
    pub token_file: Option<PathBuf>,
    /// The CA file that signs the server's certificate, where it is not a public one.
    pub ca_file: Option<PathBuf>,
    /// The node whose pods are asked for.
    pub node: String,
    /// The whole exchange's deadline.
    pub deadline: Duration,
}

#[derive(serde::Deserialize)]
struct PodList {
    #[serde(default)]
    items: Vec<Item>,
}

#[derive(serde::Deserialize)]
struct Item {
    metadata: Metadata,
}

#[derive(serde::Deserialize)]
struct Metadata {
    #[serde(default)]
    uid: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    annotations: Option<BTreeMap<String, String>>,
}

impl Api {
    /// The pods on the node, by UID.
    pub fn pods(&self) -> Result<BTreeMap<String, PodMeta>, String> {
        let url = http::with_path(&self.url, &["api/v1/pods"])?;
        let mut req = Request::new(url, self.deadline, MAX_ANSWER);
        req.query.push(("fieldSelector".into(), format!("spec.nodeName={}", self.node)));
        req.headers.push(("accept", "application/json".into()));
        if let Some(f) = &self.token_file {
            let token = crate::files::read_regular_text(f, 64 * 1024).map_err(|e| format!("cannot read the token {}: {e}", f.display()))?;
            req.bearer = Some(token.trim().to_string());
        }
        if let Some(f) = &self.ca_file {
            let pem = crate::files::read_regular_text(f, 1 << 20).map_err(|e| format!("cannot read the CA {}: {e}", f.display()))?;
            req.ca_pem = Some(std::sync::Arc::new(pem.into_bytes()));
        }
        let said = crate::text::redact_url(&self.url);
        let answer = http::send(req).map_err(|e| format!("the Kubernetes API at {said}: {e}"))?;
        if answer.status != 200 {
            let why = match answer.status {
                401 => " (the token was not accepted)",
                403 => " (the service account may not list pods: see deploy/kubernetes/chargeback)",
                _ => "",
            };
            return Err(format!("the Kubernetes API at {said} answered HTTP {}{why}", answer.status));
        }
        let list: PodList =
            serde_json::from_slice(&answer.body).map_err(|e| format!("the Kubernetes API at {said} sent no pod list ({e})"))?;
        Ok(list
            .items
            .into_iter()
            .filter(|i| !i.metadata.uid.is_empty())
            .map(|i| {
                let m = i.metadata;
                let meta = PodMeta {
                    uid: m.uid.clone(),
                    namespace: m.namespace,
                    name: m.name,
                    labels: m.labels.unwrap_or_default(),
                    annotations: m.annotations.unwrap_or_default(),
                };
                (m.uid, meta)
            })
            .collect())
    }
}

//! The pods on this node, as the Kubernetes API says them: `GET /api/v1/pods?fieldSelector=spec.nodeName=<node>`
//! with the pod's service-account token (read again each time: a projected token rotates) and the cluster's CA.
//! It needs `list` on pods, nothing more (deploy/kubernetes/chargeback's ClusterRole). Only each pod's metadata is
//! kept: its UID, namespace, name, labels and annotations.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::sources::http::{self, Request};

/// The largest answer read: a node's 110 pods' metadata is well under a megabyte (asked as metadata only).
pub const MAX_ANSWER: u64 = 16 << 20;

/// The annotation a static pod's mirror bears: the static pod's config hash, the UID its control group names.
pub const MIRROR: &str = "kubernetes.io/config.mirror";

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
    /// The pods on the node, by UID (a static pod's also by its config hash), each with only the labels and
    /// annotations of `keep`'s keys.
    pub fn pods(&self, keep: &[&str]) -> Result<BTreeMap<String, PodMeta>, String> {
        let url = http::with_path(&self.url, &["api/v1/pods"])?;
        let mut req = Request::new(url, self.deadline, MAX_ANSWER);
        req.query.push(("fieldSelector".into(), format!("spec.nodeName={}", self.node)));
        // From the API server's cache (not a quorum read of etcd), and the metadata alone.
        req.query.push(("resourceVersion".into(), "0".into()));
        req.headers.push(("accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json".into()));
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
        let kept = |m: Option<BTreeMap<String, String>>| -> BTreeMap<String, String> {
            m.unwrap_or_default().into_iter().filter(|(k, _)| keep.contains(&k.as_str())).collect()
        };
        let mut out = BTreeMap::new();
        for i in list.items.into_iter().filter(|i| !i.metadata.uid.is_empty()) {
            let m = i.metadata;
            let mirror = m.annotations.as_ref().and_then(|a| a.get(MIRROR)).cloned();
            let meta = PodMeta {
                uid: m.uid.clone(),
                namespace: m.namespace,
                name: m.name,
                labels: kept(m.labels),
                annotations: kept(m.annotations),
            };
            if let Some(hash) = mirror.filter(|h| !h.is_empty()) {
                out.insert(hash, meta.clone());
            }
            out.insert(m.uid, meta);
        }
        Ok(out)
    }
}

//! Which devices the kubelet gave to which pod: the kubelet's PodResources API (`v1.PodResourcesLister/List`,
//! gRPC over the Unix socket `/var/lib/kubelet/pod-resources/kubelet.sock`), as dcgm-exporter reads it. Spoken
//! with tonic; the messages are the published `api.proto`'s (k8s.io/kubelet `pkg/apis/podresources/v1`), of
//! which only the fields read here are declared: protobuf skips the others (CPU ids, memory, dynamic
//! resources), so a newer kubelet's answer still decodes.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The largest answer read: a node's pods with every device listed are far smaller.
pub const MAX_ANSWER: usize = 16 << 20;

/// `ListPodResourcesRequest`: nothing.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListPodResourcesRequest {}

/// `ListPodResourcesResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListPodResourcesResponse {
    /// `pod_resources = 1`.
    #[prost(message, repeated, tag = "1")]
    pub pod_resources: Vec<PodResources>,
}

/// `PodResources`: a pod and its containers' resources.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PodResources {
    /// `name = 1`.
    #[prost(string, tag = "1")]
    pub name: String,
    /// `namespace = 2`.
    #[prost(string, tag = "2")]
    pub namespace: String,
    /// `containers = 3`.
    #[prost(message, repeated, tag = "3")]
    pub containers: Vec<ContainerResources>,
}

/// `ContainerResources`: the devices one container was given.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ContainerResources {
    /// `name = 1`.
    #[prost(string, tag = "1")]
    pub name: String,
    /// `devices = 2`.
    #[prost(message, repeated, tag = "2")]
    pub devices: Vec<ContainerDevices>,
}

/// `ContainerDevices`: one resource's devices.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ContainerDevices {
    /// `resource_name = 1` (`nvidia.com/gpu`, `amd.com/gpu`, `nvidia.com/mig-1g.10gb`).
    #[prost(string, tag = "1")]
    pub resource_name: String,
    /// `device_ids = 2`: a GPU's UUID (`GPU-…`, `MIG-…`), with `::n` after it for a time-sliced replica.
    #[prost(string, repeated, tag = "2")]
    pub device_ids: Vec<String>,
}

/// A device a pod holds.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Held {
    /// The pod's namespace.
    pub namespace: String,
    /// The pod's name.
    pub pod: String,
    /// The device's id, a time-sliced replica's `::n` taken off (the GPU it runs on).
    pub device: String,
}

/// Whether a resource is a GPU's (`nvidia.com/gpu`, `nvidia.com/mig-…`, `amd.com/gpu`, `gpu.intel.com/i915`).
fn is_gpu(resource: &str) -> bool {
    let (vendor, name) = resource.split_once('/').unwrap_or(("", resource));
    matches!(vendor, "nvidia.com" | "amd.com" | "gpu.intel.com") && (name.contains("gpu") || name.starts_with("mig-") || name == "i915")
}

/// The kubelet's PodResources API at a socket: one connection kept open between readings (made again when it
/// fails), and a runtime of its own.
pub struct Kubelet {
    socket: PathBuf,
    rt: tokio::runtime::Runtime,
    channel: Option<tonic::transport::Channel>,
}

impl Kubelet {
    /// The API at `socket`; nothing is dialled until `list`.
    pub fn new(socket: &Path) -> Result<Kubelet, String> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| format!("cannot start a runtime: {e}"))?;
        Ok(Kubelet { socket: socket.to_path_buf(), rt, channel: None })
    }

    /// The GPUs each pod holds, within `deadline`.
    pub fn list(&mut self, deadline: Duration) -> Result<Vec<Held>, String> {
        let said = self.socket.display().to_string();
        let socket = self.socket.clone();
        let kept = self.channel.clone();
        let answer = self.rt.block_on(async move {
            tokio::time::timeout(deadline, async move {
                let channel = match kept {
                    Some(c) => c,
                    None => connect(socket).await?,
                };
                let answer = ask(channel.clone(), &said).await?;
                Ok::<_, String>((channel, answer))
            })
            .await
        });
        let (channel, answer) = match answer {
            Ok(Ok(a)) => a,
            Ok(Err(e)) => {
                self.channel = None;
                return Err(e);
            }
            Err(_) => {
                self.channel = None;
                return Err(format!("the kubelet's PodResources API did not answer within {:.1} s", deadline.as_secs_f64()));
            }
        };
        self.channel = Some(channel);
        let mut out = Vec::new();
        for p in answer.pod_resources {
            for c in &p.containers {
                for d in c.devices.iter().filter(|d| is_gpu(&d.resource_name)) {
                    for id in &d.device_ids {
                        let device = id.split_once("::").map_or(id.as_str(), |(gpu, _)| gpu).to_string();
                        out.push(Held { namespace: p.namespace.clone(), pod: p.name.clone(), device });
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

async fn connect(socket: PathBuf) -> Result<tonic::transport::Channel, String> {
    let said = socket.display().to_string();
    // The URI is not dialled: every connection is the socket's.
    tonic::transport::Endpoint::from_static("http://localhost")
        .connect_timeout(Duration::from_secs(5))
        .connect_with_connector(tower::service_fn(move |_: tonic::transport::Uri| {
            let socket = socket.clone();
            async move { Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(tokio::net::UnixStream::connect(socket).await?)) }
        }))
        .await
        .map_err(|e| format!("cannot reach the kubelet's PodResources API at {said}: {}", why(&e)))
}

async fn ask(channel: tonic::transport::Channel, said: &str) -> Result<ListPodResourcesResponse, String> {
    let mut client = tonic::client::Grpc::new(channel).max_decoding_message_size(MAX_ANSWER);
    client.ready().await.map_err(|e| format!("the kubelet's PodResources API at {said} is not ready: {}", why(&e)))?;
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/v1.PodResourcesLister/List");
    let codec: tonic_prost::ProstCodec<ListPodResourcesRequest, ListPodResourcesResponse> = tonic_prost::ProstCodec::default();
    let answer = client
        .unary(tonic::Request::new(ListPodResourcesRequest {}), path, codec)
        .await
        .map_err(|s| format!("the kubelet's PodResources API at {said} refused: {} ({:?})", s.message(), s.code()))?;
    Ok(answer.into_inner())
}

/// An error and its causes, in one line.
fn why(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        // A cause its error already says (hyper's and tonic's repeat the io error) is said once.
        let said = s.to_string();
        if !out.contains(&said) {
            out.push_str(": ");
            out.push_str(&said);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{is_gpu, ListPodResourcesResponse};
    use prost::Message;

    /// An answer as protoc's Python encodes it from the published api.proto (two pods: ml/trainer-0's container
    /// `main` with two GPUs on NUMA node 1 and CPUs 0 and 1; default/idle's empty container `c`): the fields read
    /// here decode, the ones not declared are skipped.
    #[test]
    fn an_answer_encoded_from_the_published_proto_decodes() {
        let hex = "0a470a09747261696e65722d3012026d6c1a360a046d61696e122a0a0e6e76696469612e636f6d2f67707512084750552d6161616112084750552d626262621a040a0208011a0200010a140a0469646c65120764656661756c741a030a0163";
        let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        let a = ListPodResourcesResponse::decode(bytes.as_slice()).unwrap();
        let p = &a.pod_resources;
        assert_eq!((p.len(), p[0].name.as_str(), p[0].namespace.as_str(), p[1].name.as_str()), (2, "trainer-0", "ml", "idle"));
        let d = &p[0].containers[0].devices[0];
        assert_eq!((p[0].containers[0].name.as_str(), d.resource_name.as_str()), ("main", "nvidia.com/gpu"));
        assert_eq!(d.device_ids, ["GPU-aaaa", "GPU-bbbb"]);
        assert!(p[1].containers[0].devices.is_empty());
    }

    #[test]
    fn a_gpus_resource_is_known_by_its_vendors_name() {
        for r in ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "amd.com/gpu", "gpu.intel.com/i915", "nvidia.com/gpu.shared"] {
            assert!(is_gpu(r), "{r}");
        }
        for r in ["cpu", "memory", "example.com/gpu", "nvidia.com/nic", "hugepages-2Mi"] {
            assert!(!is_gpu(r), "{r}");
        }
    }
}

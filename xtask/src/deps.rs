//! `cargo xtask test`: what the test suite needs besides Rust, installed
//! when it can be (as root, with apt-get), named with the way to get it when
//! it cannot. A test never skips silently because a tool is absent.

use std::process::Command;

/// (program the tests run, the Debian package that brings it).
const NEEDS: &[(&str, &str)] = &[
    ("prometheus", "prometheus"),
    ("promtool", "prometheus"),
    ("python3", "python3"),
    ("cc", "gcc"),
    ("ps", "procps"),
    ("pkill", "procps"),
    ("script", "bsdutils"),
    ("mkfifo", "coreutils"),
    ("chromium", "chromium"),
    ("psql", "postgresql"),
    // A throw-away Slurm with accounting for `exa import slurm` (tests/slurm/cluster.sh).
    ("sacct", "slurm-client"),
    ("slurmctld", "slurmctld"),
    ("slurmd", "slurmd"),
    ("slurmdbd", "slurmdbd"),
    ("mariadbd", "mariadb-server"),
    ("mariadb-install-db", "mariadb-server"),
    ("munged", "munge"),
    ("mknod", "coreutils"),
    // A capable exa loads no library its user names (tests/cli/sources.rs).
    ("setcap", "libcap2-bin"),
    ("setpriv", "util-linux"),
    // A real Pushgateway for `measure --push-gateway` (tests/cli/telemetry.rs).
    ("prometheus-pushgateway", "prometheus-pushgateway"),
    // A real Alertmanager for `exa budget notify` (tests/cli/budgets.rs).
    ("prometheus-alertmanager", "prometheus-alertmanager"),
    // deploy/: systemd's own check of the unit, and Node for the Prometheus operator's schemas (tests/cli/deploy.rs).
    ("systemd-analyze", "systemd"),
    ("node", "nodejs"),
    ("npm", "npm"),
];

/// PostgreSQL's server programs live off PATH, in /usr/lib/postgresql/<version>/bin.
fn has_postgres_server() -> bool {
    std::fs::read_dir("/usr/lib/postgresql").is_ok_and(|d| d.flatten().any(|v| v.path().join("bin/initdb").is_file()))
}

/// On PATH, or in the system directories daemons live in (a minimal PATH may lack them).
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        || ["/usr/sbin", "/sbin"].iter().any(|d| std::path::Path::new(d).join(program).is_file())
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Installs the missing packages, or says exactly what is missing and how to get it.
pub fn ensure() -> Result<(), String> {
    let mut packages: Vec<&str> = NEEDS.iter().filter(|(p, _)| !on_path(p)).map(|(_, pkg)| *pkg).collect();
    if !has_postgres_server() {
        packages.push("postgresql");
    }
    packages.sort_unstable();
    packages.dedup();
    if packages.is_empty() {
        return Ok(());
    }
    let how = format!("apt-get install --no-install-recommends {}", packages.join(" "));
    if !is_root() || !on_path("apt-get") {
        return Err(format!("the tests need {}; install them first: sudo {how}", packages.join(", ")));
    }
    eprintln!("installing what the tests need: {}", packages.join(" "));
    let ok = Command::new("apt-get").args(["update", "-qq"]).status().is_ok_and(|s| s.success())
        && Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(&packages)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success());
    let mut still: Vec<&str> = NEEDS.iter().filter(|(p, _)| !on_path(p)).map(|(p, _)| *p).collect();
    if !has_postgres_server() {
        still.push("initdb");
    }
    if ok && still.is_empty() {
        Ok(())
    } else {
        Err(format!("could not install {} (still missing: {}); try: {how}", packages.join(" "), still.join(", ")))
    }
}

/// What the Python side of the tests needs, pinned: the MCP SDK the MCP tests drive exa with,
/// the MLflow tracking server the MLflow tests log to, the OTLP protobuf definitions the OTLP
/// receiver decodes with, and the OpenTelemetry SDK's Prometheus exporter (an implementation of
/// the OTLP-to-Prometheus name translation), and the Kubernetes schemas the manifests in deploy/ are
/// checked against (`kubernetes-validate`), Grafana's SDK, which reads the dashboard there, and
/// maturin, which builds the wheel `pip install examlops` takes (linked by zig against glibc 2.28, so it installs on
/// RHEL 8, and checked by auditwheel), and gRPC with its protobuf compiler, which
/// serve the kubelet's PodResources API from its published `api.proto` (tests/fixtures/kubernetes).
const PYTHON_NEEDS: &[&str] = &[
    "mcp==2.3.0",
    "mlflow==3.17.2",
    "opentelemetry-proto",
    "opentelemetry-exporter-prometheus==0.66b2",
    "kubernetes-validate==1.37.0",
    "grafana-foundation-sdk==1769699998!10.1.0",
    "maturin==1.16.0",
    "ziglang==0.17.1",
    "auditwheel==6.8.2",
    "grpcio==1.85.1",
    "grpcio-tools==1.85.1",
    // Hugging Face's Trainer callbacks, without PyTorch: `examlops.integrations` is tested with the real ones.
    "transformers==5.25.0",
];

/// The FinOps Foundation's FOCUS validator, which needs Python 3.12 or later (and a pyarrow that
/// keeps to its numpy<2 pin), in a virtual environment of its own.
const FOCUS_NEEDS: &[&str] = &["focus-validator==2.2.1", "pyarrow<22"];

/// A Python with the official MCP SDK, in a virtual environment under
/// `target/test-python` (made, and the SDK installed from PyPI, when missing).
pub fn python_env(root: &std::path::Path) -> Result<std::path::PathBuf, String> {
    let venv = root.join("target/test-python");
    let python = venv.join("bin/python");
    let has_sdk = || {
        Command::new(&python)
            .args([
                "-c",
                "import mcp, mlflow, opentelemetry.proto.collector.metrics.v1.metrics_service_pb2, opentelemetry.exporter.prometheus, kubernetes_validate, grafana_foundation_sdk, maturin, ziglang, auditwheel, grpc, grpc_tools, transformers.trainer_callback",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if has_sdk() {
        return Ok(python);
    }
    let make =
        || python.exists() || Command::new("python3").args(["-m", "venv", "--clear"]).arg(&venv).output().is_ok_and(|o| o.status.success());
    if !make() {
        // Debian's python3 makes virtual environments only with python3-venv installed.
        if is_root() && on_path("apt-get") {
            eprintln!("installing what the tests need: python3-venv");
            let _ = Command::new("apt-get")
                .args(["install", "-y", "-qq", "--no-install-recommends", "python3-venv"])
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status();
        }
        if !make() {
            return Err(format!("cannot make a Python virtual environment in {}; install python3-venv", venv.display()));
        }
    }
    eprintln!("installing {} into {} (a minute or two, once)", PYTHON_NEEDS.join(" "), venv.display());
    let ok = Command::new(&python)
        .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
        .args(PYTHON_NEEDS)
        .status()
        .is_ok_and(|s| s.success());
    if ok && has_sdk() {
        Ok(python)
    } else {
        Err(format!("could not install {} from PyPI into {}", PYTHON_NEEDS.join(" "), venv.display()))
    }
}

/// A Python 3.12 or later: on PATH, or one pyenv installed (Debian 12's own is 3.11).
fn python_312() -> Option<std::path::PathBuf> {
    let ok = |p: &std::path::Path| {
        Command::new(p)
            .args(["-c", "import sys, venv; sys.exit(0 if sys.version_info >= (3, 12) else 1)"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    // 3.12 first: the validator pins a numpy with wheels for it, where a newer Python builds numpy from source
    // (minutes on a 2-core machine).
    let mut candidates: Vec<std::path::PathBuf> = ["python3.12", "python3.13", "python3.14"].iter().map(std::path::PathBuf::from).collect();
    let pyenv = std::env::var_os("PYENV_ROOT").map_or_else(
        || std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".pyenv")).unwrap_or_default(),
        std::path::PathBuf::from,
    );
    for root in [pyenv, std::path::PathBuf::from("/root/.pyenv")] {
        if let Ok(d) = std::fs::read_dir(root.join("versions")) {
            let mut versions: Vec<std::path::PathBuf> = d.flatten().map(|e| e.path().join("bin/python3")).collect();
            versions.sort();
            let is_312 = |p: &std::path::PathBuf| {
                p.parent().and_then(|b| b.parent()).is_some_and(|v| v.ends_with("3.12") || v.to_string_lossy().contains("/3.12."))
            };
            let (first, rest): (Vec<_>, Vec<_>) = versions.into_iter().rev().partition(is_312);
            candidates.extend(first.into_iter().chain(rest));
        }
    }
    candidates.into_iter().find(|p| ok(p))
}

/// The Prometheus operator's resource schemas (`@kubernetes-models/prometheus-operator`, generated from
/// its CRDs) and a YAML reader, for the ServiceMonitor in deploy/kubernetes.
const NODE_NEEDS: &[&str] = &["@kubernetes-models/prometheus-operator@6.0.0", "js-yaml@4.1.0"];

/// `target/test-node` with `NODE_NEEDS` installed from npm (when missing); its `node_modules`.
pub fn node_env(root: &std::path::Path) -> Result<std::path::PathBuf, String> {
    let dir = root.join("target/test-node");
    let modules = dir.join("node_modules");
    let has = || NODE_NEEDS.iter().all(|n| modules.join(n.rsplit_once('@').map_or(*n, |(name, _)| name)).join("package.json").is_file());
    if has() {
        return Ok(modules);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    eprintln!("installing {} into {} (once)", NODE_NEEDS.join(" "), dir.display());
    let ok = Command::new("npm")
        .args(["install", "--silent", "--no-audit", "--no-fund", "--no-save", "--prefix"])
        .arg(&dir)
        .args(NODE_NEEDS)
        .status()
        .is_ok_and(|s| s.success());
    if ok && has() {
        Ok(modules)
    } else {
        Err(format!("could not install {} from npm into {}", NODE_NEEDS.join(" "), dir.display()))
    }
}

/// The FOCUS validator in `target/focus-python` (made, and the validator installed from PyPI, when
/// missing); the path of its `focus-validator` program.
pub fn focus_env(root: &std::path::Path) -> Result<std::path::PathBuf, String> {
    let venv = root.join("target/focus-python");
    let program = venv.join("bin/focus-validator");
    // It writes focus_validator_detailed.log in its working directory: run it in its own folder.
    let has = || Command::new(&program).arg("--help").current_dir(&venv).output().is_ok_and(|o| o.status.success());
    if has() {
        return Ok(program);
    }
    let Some(python) = python_312() else {
        return Err("the FOCUS validator needs Python 3.12 or later (python3.12 on PATH, or one under pyenv); none was found".into());
    };
    let made = Command::new(&python).args(["-m", "venv", "--clear"]).arg(&venv).output().is_ok_and(|o| o.status.success());
    if !made {
        return Err(format!("cannot make a virtual environment in {} with {}", venv.display(), python.display()));
    }
    eprintln!("installing {} into {} (a minute, once)", FOCUS_NEEDS.join(" "), venv.display());
    let ok = Command::new(venv.join("bin/python"))
        .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
        .args(FOCUS_NEEDS)
        .status()
        .is_ok_and(|s| s.success());
    if ok && has() {
        Ok(program)
    } else {
        Err(format!("could not install {} from PyPI into {}", FOCUS_NEEDS.join(" "), venv.display()))
    }
}

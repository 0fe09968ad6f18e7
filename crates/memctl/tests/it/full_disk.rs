//! Issue 25's bad-input figures as the project's own: a full disk and a
//! read-only mount give a clear error and leave every file as it was, and
//! the next command on a disk with room again finds a whole store. The store
//! lives on a small tmpfs mounted in a mount namespace of its own
//! (`unshare -m`, as root); where that cannot be done the test prints
//! `SKIPPED` and why, and passes nothing.

use std::fs;
use std::process::Command;

use crate::env::TestEnv;

/// What the script inside the namespace runs: memctl on a store on a
/// 512 KiB tmpfs, filled up, then remounted read-only. Each step's exit code
/// and standard error go to files beside the script, and the store's files
/// are hashed before and after each refused write.
const SCRIPT: &str = r#"
set -u
out="$1"; mnt="$2"
mount -t tmpfs -o size=512k tmpfs "$mnt" || { echo "mount failed" > "$out/skip"; exit 0; }
s="$mnt/store"
snap() { (cd "$s" && find . -type f ! -path './.git/*' | sort | xargs md5sum) > "$out/$1"; }
step() { name="$1"; shift; memctl --store "$s" "$@" 2> "$out/$name.err" > /dev/null; echo $? > "$out/$name.code"; }
step init init
step keep remember --yes --name keep --type project --description "Deploys go through the pipeline" "Deploys go through the pipeline, never by hand."
step drop remember --yes --name drop --type project --description "Staging runs on zanzibar" "Staging runs on the zanzibar host."
snap before
dd if=/dev/zero of="$mnt/filler" bs=4k 2> /dev/null
body=$(head -c 6000 /dev/zero | tr '\0' 'w')
step full_add remember --yes --name big --type project --description "A long note about widgets" "$body"
step full_update remember --yes --name keep --type project --description "Deploys go through the pipeline" "Deploys go through the pipeline, never by hand; $body"
step full_forget forget --yes drop
snap after_full
rm -f "$mnt/filler"
step room_check check -q
step room_add remember --yes --name big --type project --description "A long note about widgets" "$body"
snap before_ro
mount -o remount,ro "$mnt"
step ro_add remember --yes --name other --type project --description "Another note" "Another note about gadgets."
step ro_forget forget --yes drop
snap after_ro
step ro_search search pipeline
"#;

fn read(dir: &std::path::Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn a_full_disk_and_a_read_only_mount_give_a_clear_error_and_change_no_file() {
    let env = TestEnv::bare();
    let out = env.root().join("out");
    let mnt = env.root().join("mnt");
    fs::create_dir_all(&out).unwrap();
    fs::create_dir_all(&mnt).unwrap();
    let memctl = env.std_command();
    let bin_dir = std::path::Path::new(memctl.get_program())
        .parent()
        .unwrap()
        .to_path_buf();
    let mut cmd = Command::new("unshare");
    cmd.env_clear();
    for (name, value) in memctl.get_envs() {
        if let Some(value) = value {
            cmd.env(name, value);
        }
    }
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path)
        .current_dir(env.work())
        .args(["-m", "sh", "-c", SCRIPT, "sh"])
        .arg(&out)
        .arg(&mnt);
    let ran = cmd.output();
    let Ok(ran) = ran else {
        eprintln!("SKIPPED: unshare is not installed here");
        return;
    };
    if !ran.status.success() || out.join("skip").exists() {
        eprintln!(
            "SKIPPED: a mount namespace with a tmpfs cannot be made here (needs root): {}",
            String::from_utf8_lossy(&ran.stderr).trim()
        );
        return;
    }
    for step in [
        "init",
        "keep",
        "drop",
        "room_check",
        "room_add",
        "ro_search",
    ] {
        assert_eq!(
            read(&out, &format!("{step}.code")).trim(),
            "0",
            "{step}: {}",
            read(&out, &format!("{step}.err"))
        );
    }
    for step in ["full_add", "full_update", "full_forget"] {
        let code = read(&out, &format!("{step}.code"));
        let err = read(&out, &format!("{step}.err"));
        assert_ne!(
            code.trim(),
            "0",
            "{step} on a full disk said it was done: {err}"
        );
        assert!(
            err.contains("No space left on device"),
            "{step}: the error says why: {err}"
        );
    }
    assert_eq!(
        read(&out, "before"),
        read(&out, "after_full"),
        "a full disk changed the store's files"
    );
    for step in ["ro_add", "ro_forget"] {
        let code = read(&out, &format!("{step}.code"));
        let err = read(&out, &format!("{step}.err"));
        assert_ne!(
            code.trim(),
            "0",
            "{step} on a read-only mount said it was done: {err}"
        );
        assert!(
            err.contains("Read-only file system"),
            "{step}: the error says why: {err}"
        );
    }
    assert_eq!(
        read(&out, "before_ro"),
        read(&out, "after_ro"),
        "a read-only mount changed the store's files"
    );
}

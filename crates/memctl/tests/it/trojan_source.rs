//! Bidi controls and invisible format characters (issue 15, item 7): refused
//! on write in names, descriptions, tags and bodies (exit 2, naming the
//! field), and shown escaped wherever a hand-written file holding them is
//! printed, `MEMORY.md` and JSON included.

use crate::env::TestEnv;

/// Every refused kind, as (what it is, the character).
const HIDDEN: [(&str, char); 6] = [
    ("right-to-left override", '\u{202E}'),
    ("left-to-right isolate", '\u{2066}'),
    ("pop directional isolate", '\u{2069}'),
    ("zero-width space", '\u{200B}'),
    ("word joiner", '\u{2060}'),
    ("unicode tag", '\u{E0069}'),
];

fn remember(
    env: &TestEnv,
    name: &str,
    description: &str,
    tag: &str,
    body: &str,
) -> crate::env::Run {
    env.remembering(name)
        .kind("project")
        .description(description)
        .tag(tag)
        .body(body)
        .run()
}

#[test]
fn bidi_controls_in_a_description_tag_or_body_were_accepted() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    for (what, c) in HIDDEN {
        for (field, run) in [
            (
                "description",
                remember(&env, "t", &format!("safe{c}txt"), "ok", "body"),
            ),
            (
                "tag",
                remember(&env, "t", "fine", &format!("ad{c}min"), "body"),
            ),
            (
                "body",
                remember(&env, "t", "fine", "ok", &format!("line one\nif x {c}y\n")),
            ),
        ] {
            run.assert_code(2);
            let code = format!("U+{:04X}", u32::from(c));
            assert!(
                run.stderr.contains(&format!("the {field} holds {code}")),
                "{what} in the {field}\n{}",
                run.render()
            );
            assert!(
                !run.all_output().contains(c),
                "{what} echoed raw\n{}",
                run.render()
            );
        }
    }
    assert_eq!(env.store_bytes(), before, "a refused write left a file");
}

#[test]
fn bidi_controls_in_a_name_were_accepted() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    for (what, c) in HIDDEN {
        let run = remember(&env, &format!("ad{c}min"), "fine", "ok", "body");
        run.assert_code(2);
        assert!(
            !run.all_output().contains(c),
            "{what} echoed raw\n{}",
            run.render()
        );
    }
    assert_eq!(env.store_bytes(), before, "a refused write left a file");
}

#[test]
fn emoji_and_persian_joiners_are_still_accepted() {
    let env = TestEnv::new();
    let run = remember(&env, "family", "می\u{200C}خواهم 👨\u{200D}👩", "ok", "body");
    run.assert_success();
}

const TROJAN: &str = "---\nname: trojan\ndescription: \"access \\u202Enimda\\u2066 check\"\ntype: project\ntags: [\"ad\\u200Bmin\"]\n---\nif is_admin \u{202E} } \u{2066}// only for admins\u{2069} {\n";

#[test]
fn a_hand_written_bidi_control_was_printed_raw() {
    let env = TestEnv::new();
    env.write_store_file("trojan.md", TROJAN);
    for args in [
        &["list"][..],
        &["list", "--json"],
        &["show", "trojan"],
        &["show", "trojan", "--json"],
        &["search", "access", "--json"],
        &["check"],
    ] {
        let run = env.run(args);
        let raw = run
            .all_output()
            .chars()
            .find(|&c| mdstore::invisible::is_format(c));
        assert_eq!(raw, None, "a raw format character\n{}", run.render());
    }
    let list = env.run(&["list"]);
    assert!(
        list.stdout.contains(r"access \u{202e}nimda\u{2066} check"),
        "{}",
        list.render()
    );
    let show = env.run(&["show", "trojan"]);
    assert!(
        show.stdout
            .contains(r"if is_admin \u{202e} } \u{2066}// only"),
        "{}",
        show.render()
    );
    let json = env.run(&["show", "trojan", "--json"]);
    assert!(json.stdout.contains(r"\u202e"), "{}", json.render());
    // A write regenerates MEMORY.md: it never carries the characters raw
    // (and escapes the escape's backslash, as Markdown).
    env.remember("other", "project", "another record", "body");
    let catalog = env.read_store_file("MEMORY.md");
    assert!(
        catalog.contains(r"access \\u{202e}nimda\\u{2066} check")
            && !catalog.chars().any(mdstore::invisible::is_format),
        "{catalog}"
    );
}

#[test]
fn check_warns_of_a_bidi_control_in_a_hand_written_body() {
    let env = TestEnv::new();
    env.write_store_file("trojan.md", TROJAN);
    let run = env.run(&["check"]);
    let out = run.all_output();
    for expected in [
        "the description holds U+202E, a bidi control",
        "the tag holds U+200B, an invisible format character",
        "trojan.md:7: warning: the body holds U+202E, a bidi control",
    ] {
        assert!(out.contains(expected), "{expected}\n{}", run.render());
    }
}

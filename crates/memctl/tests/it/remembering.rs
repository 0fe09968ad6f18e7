//! `memctl remember` spelled once: a builder on [`TestEnv`] so that a test
//! names only what it is about (`env.remembering("deploy").description(…)`)
//! instead of spelling the whole argument vector. The arguments come out in
//! the order they were given (`--yes` first), as a snapshot's header shows.

use crate::env::{Run, TestEnv};

/// A `memctl remember` about to run. `--yes` unless [`Remember::asking`].
#[must_use = "a remember does nothing until it is run"]
pub struct Remember<'a> {
    env: &'a TestEnv,
    flags: Vec<String>,
    body: Option<String>,
    stdin: Option<String>,
    yes: bool,
}

impl TestEnv {
    /// `memctl remember --yes --name NAME`, to be filled in and run.
    pub fn remembering(&self, name: &str) -> Remember<'_> {
        self.remembering_unnamed().name(name)
    }

    /// `memctl remember --yes` without a name yet (`--from-json`, a global
    /// option first, or a test of what happens without one).
    pub fn remembering_unnamed(&self) -> Remember<'_> {
        Remember {
            env: self,
            flags: Vec::new(),
            body: None,
            stdin: None,
            yes: true,
        }
    }
}

impl Remember<'_> {
    /// `--name NAME`
    pub fn name(self, name: &str) -> Self {
        self.flag("--name", name)
    }

    /// `--store PATH`
    pub fn store(self, store: &str) -> Self {
        self.flag("--store", store)
    }

    /// `--global`
    pub fn global(self) -> Self {
        self.arg("--global")
    }

    /// `--from-json FILE` (`-`: standard input)
    pub fn candidates_from(self, file: &str) -> Self {
        self.flag("--from-json", file)
    }

    /// `--type KIND`
    pub fn kind(self, kind: &str) -> Self {
        self.flag("--type", kind)
    }

    /// `--description TEXT`
    pub fn description(self, text: &str) -> Self {
        self.flag("--description", text)
    }

    /// `--source SOURCE`
    pub fn source(self, source: &str) -> Self {
        self.flag("--source", source)
    }

    /// `--scope SCOPE`
    pub fn scope(self, scope: &str) -> Self {
        self.flag("--scope", scope)
    }

    /// `--expires DATE`
    pub fn expires(self, date: &str) -> Self {
        self.flag("--expires", date)
    }

    /// `--tag TAG`
    pub fn tag(self, tag: &str) -> Self {
        self.flag("--tag", tag)
    }

    /// `--expect-revision N`
    pub fn expect_revision(self, revision: &str) -> Self {
        self.flag("--expect-revision", revision)
    }

    /// The body, the last argument (after `--` when it looks like an option).
    pub fn body(mut self, body: &str) -> Self {
        self.body = Some(body.to_string());
        self
    }

    /// The body read from standard input (`-`).
    pub fn body_from_stdin(self, stdin: &str) -> Self {
        self.body("-").stdin(stdin)
    }

    /// Standard input for the run.
    pub fn stdin(mut self, stdin: &str) -> Self {
        self.stdin = Some(stdin.to_string());
        self
    }

    /// Any other argument (`--force`, `--json`, `--dry-run`, `--commit`, …).
    pub fn arg(mut self, arg: &str) -> Self {
        self.flags.push(arg.to_string());
        self
    }

    /// Without `--yes`: memctl asks (and, with no terminal, refuses).
    pub fn asking(mut self) -> Self {
        self.yes = false;
        self
    }

    fn flag(mut self, flag: &str, value: &str) -> Self {
        self.flags.push(flag.to_string());
        self.flags.push(value.to_string());
        self
    }

    /// The argument vector, `remember` first.
    pub fn args(&self) -> Vec<String> {
        let mut args = vec!["remember".to_string()];
        if self.yes {
            args.push("--yes".to_string());
        }
        args.extend(self.flags.iter().cloned());
        if let Some(body) = &self.body {
            if body.starts_with("--") {
                args.push("--".to_string());
            }
            args.push(body.clone());
        }
        args
    }

    /// Runs it; the caller asserts what it expects.
    pub fn run(self) -> Run {
        let args = self.args();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        match &self.stdin {
            Some(stdin) => self.env.run_stdin(&args, stdin),
            None => self.env.run(&args),
        }
    }

    /// Runs it and asserts it succeeded.
    pub fn ok(self) -> Run {
        let run = self.run();
        run.assert_success();
        run
    }
}

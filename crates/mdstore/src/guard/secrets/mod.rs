//! The secret guard: API keys, tokens, private keys, passwords.
//!
//! Each rule (`rules.rs`) is a pattern for one kind of credential, plus, where
//! the pattern alone would also catch harmless text, a check of the value
//! (`values.rs`: placeholders, code that reads a secret from elsewhere, low
//! entropy, plain words). Findings name the rule and the line, never the
//! secret. docs/SECRETS.md says where the rules come from and how well they
//! do on a labelled set and on real files.

mod rules;
mod values;

use std::fmt;
use std::sync::{LazyLock, OnceLock};

use regex::{Regex, RegexSet, RegexSetBuilder};

use crate::frontmatter::Frontmatter;
use crate::guard::builtin_regex;
use rules::{RULES, Rule};

/// One secret found: which rule and on which 1-based line. Never the secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretFinding {
    pub rule: &'static str,
    pub line: usize,
}

impl fmt::Display for SecretFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} on line {}", self.rule, self.line)
    }
}

/// The rules compiled once: a set that says which rules match a line at all
/// (one pass over it), and each rule's own regex for its captures, compiled
/// the first time the set says that rule matched: most texts hold no
/// secret, and compiling every rule's regex up front cost a `memctl
/// context` hook more than the rest of its answer.
struct Compiled {
    any: RegexSet,
    each: Vec<(&'static Rule, OnceLock<Regex>)>,
}

impl Compiled {
    fn rule(&self, index: usize) -> (&'static Rule, &Regex) {
        let (rule, regex) = &self.each[index];
        (rule, regex.get_or_init(|| builtin_regex(rule.pattern)))
    }
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    any: builtin_regex_set(RULES.iter().map(|rule| rule.pattern)),
    each: RULES.iter().map(|rule| (rule, OnceLock::new())).collect(),
});

/// The set's lazy DFA builds its states while it scans; with 59 patterns
/// the default cache (2 MiB) fills and is cleared over and over on a large
/// store, which made `check` three to ten times slower.
const LAZY_DFA_CACHE_BYTES: usize = 16 << 20;

#[expect(
    clippy::expect_used,
    reason = "only the constant rule patterns reach here, and the tests compile every one"
)]
fn builtin_regex_set<'p>(patterns: impl Iterator<Item = &'p str>) -> RegexSet {
    RegexSetBuilder::new(patterns)
        .dfa_size_limit(LAZY_DFA_CACHE_BYTES)
        .build()
        .expect("the built-in rule patterns compile")
}

/// Every secret in `text`: at most one finding per rule and line.
pub fn find_secrets(text: &str) -> Vec<SecretFinding> {
    let mut findings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let candidates = COMPILED.any.matches(line);
        if !candidates.matched_any() {
            continue;
        }
        // A match overlapping one already found is the same secret.
        let mut taken: Vec<(usize, usize)> = Vec::new();
        for (rule, regex) in candidates.iter().map(|i| COMPILED.rule(i)) {
            for captures in regex.captures_iter(line) {
                let Some(whole) = captures.get(0) else {
                    continue;
                };
                let (start, end) = (whole.start(), whole.end());
                if taken.iter().any(|&(s, e)| start < e && s < end) || !(rule.check)(&captures) {
                    continue;
                }
                taken.push((start, end));
                let finding = SecretFinding {
                    rule: rule.name,
                    line: index + 1,
                };
                if !findings.contains(&finding) {
                    findings.push(finding);
                }
            }
        }
    }
    findings
}

/// The note a message shows instead of `text` when it holds a secret:
/// `<hidden: looks like a secret (rule aws-access-key)>`. SPEC §6: no
/// message may echo a secret, not even one rejecting the value.
pub fn secret_note(text: &str) -> Option<String> {
    find_secrets(text)
        .first()
        .map(|found| format!("<hidden: looks like a secret (rule {})>", found.rule))
}

/// `text` quoted as `{:?}` quotes it, or its [`secret_note`] if it holds a
/// secret: for messages that echo a value they reject.
pub fn quoted_or_hidden(text: &str) -> String {
    secret_note(text).unwrap_or_else(|| format!("{text:?}"))
}

/// A secret in the decoded value of a frontmatter entry: the rule, the key
/// and the line of the key. Never the secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSecret {
    pub rule: &'static str,
    pub key: String,
    pub line: usize,
}

/// Secrets that only the decoded values of `frontmatter` show (a YAML
/// escape, an escaped line break hides them from the raw lines): every
/// string of every entry is scanned, and a rule that `raw_findings` (the
/// scan of the file's lines) already reported within the entry is skipped.
pub fn find_in_frontmatter(
    frontmatter: &Frontmatter,
    raw_findings: &[SecretFinding],
) -> Vec<FieldSecret> {
    let mut found: Vec<FieldSecret> = Vec::new();
    for entry in frontmatter.decoded_entries() {
        for text in &entry.strings {
            for finding in find_secrets(text) {
                let seen_raw = raw_findings.iter().any(|raw| {
                    raw.rule == finding.rule
                        && (entry.first_line..=entry.last_line).contains(&raw.line)
                });
                let secret = FieldSecret {
                    rule: finding.rule,
                    key: entry.key.clone(),
                    line: entry.first_line,
                };
                if !seen_raw && !found.contains(&secret) {
                    found.push(secret);
                }
            }
        }
    }
    found
}

/// The names of every rule, in the order they run.
pub fn rule_names() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|rule| rule.name)
}

#[cfg(test)]
mod tests;

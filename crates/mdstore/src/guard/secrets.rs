//! The secret guard: API keys, tokens, private keys, passwords.
//!
//! Each rule is a pattern for one kind of credential, plus, where the
//! pattern alone would also catch harmless text, a check of the value
//! (placeholders, code that reads a secret from elsewhere, low entropy).
//! Rules run from the most specific to the most generic; a match that
//! overlaps one already found on the line is the same secret and is not
//! reported again (`token=ghp_…` is a GitHub token, `sk-ant-…` is Anthropic's,
//! not OpenAI's).

use std::collections::HashMap;
use std::fmt;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::guard::builtin_regex;

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

/// Decides, from a match's captures, whether it really is a secret.
type Check = fn(&Captures<'_>) -> bool;

struct Rule {
    /// Stable kebab-case name shown to users and scripts.
    name: &'static str,
    pattern: &'static str,
    check: Check,
}

/// The separator of a `key: value` / `key = value` assignment, tolerating
/// quotes and Markdown emphasis around the key (`"password":`, `**Token:**`).
macro_rules! assignment {
    ($key:literal, $($value:tt)+) => {
        concat!($key, r#"["'*_]*\s*(?::=|=>|[:=])[*_]*\s*"#, $($value)+)
    };
}

/// A value: quoted (group `quoted`) or bare up to a space or delimiter
/// (group `bare`).
macro_rules! value {
    () => {
        r#"(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|`(?P<bq>[^`]*)`|(?P<bare>[^\s"'`=,;][^\s"'`,;]*))"#
    };
}

const RULES: &[Rule] = &[
    Rule {
        name: "gcp-service-account-key",
        pattern: r#""private_key"\s*:\s*"-----BEGIN[A-Z ]*PRIVATE KEY-----"#,
        check: always,
    },
    Rule {
        name: "pem-private-key",
        pattern: r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
        check: always,
    },
    Rule {
        name: "aws-access-key-id",
        pattern: r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?-u:\b)",
        check: always,
    },
    Rule {
        name: "aws-secret-access-key",
        pattern: assignment!(
            r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)",
            r#"["']?(?P<value>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#
        ),
        check: random_value,
    },
    Rule {
        name: "gcp-api-key",
        pattern: r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}(?:[^0-9A-Za-z_\-]|$)",
        check: always,
    },
    Rule {
        name: "azure-storage-account-key",
        pattern: r"(?i:AccountKey)\s*=\s*(?P<value>[A-Za-z0-9+/]{40,}={0,2})",
        check: random_value,
    },
    Rule {
        name: "azure-shared-access-key",
        pattern: r"(?i:SharedAccessKey)\s*=\s*(?P<value>[A-Za-z0-9+/]{30,}={0,2})",
        check: random_value,
    },
    Rule {
        name: "github-token",
        pattern: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})(?-u:\b)",
        check: always,
    },
    Rule {
        name: "gitlab-token",
        pattern: r"(?-u:\b)(?:glpat|gldt|glrt|glptt|glft|glsoat|glcbt)-[A-Za-z0-9_\-]{20,}",
        check: always,
    },
    Rule {
        name: "slack-token",
        pattern: r"(?-u:\b)xox[abeprs]-(?:[0-9]+-)+[0-9A-Za-z]{8,}",
        check: always,
    },
    Rule {
        name: "slack-webhook",
        pattern: r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+\-]{20,}",
        check: always,
    },
    Rule {
        name: "stripe-secret-key",
        pattern: r"(?-u:\b)(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}",
        check: always,
    },
    Rule {
        name: "anthropic-api-key",
        pattern: r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{20,}",
        check: always,
    },
    Rule {
        name: "openai-api-key",
        pattern: r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?(?P<value>[A-Za-z0-9_\-]{20,})",
        check: mixed_case_and_digits,
    },
    Rule {
        name: "jwt",
        pattern: r"(?-u:\b)eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{10,}",
        check: always,
    },
    Rule {
        name: "password-in-url",
        pattern: r"(?i:[a-z][a-z0-9+.\-]*)://[^\s/:@]+:(?P<value>[^\s/@]+)@",
        check: url_password,
    },
    Rule {
        name: "secret-assignment",
        pattern: assignment!(
            r"(?-u:\b)(?i:[a-z0-9_.\-]*(?:password|passwd|passphrase|secret|token|api[_\-]?key|(?:access|auth|private)[_\-]?key|credentials?))",
            value!()
        ),
        check: assigned_secret,
    },
];

static COMPILED: LazyLock<Vec<(&'static Rule, Regex)>> = LazyLock::new(|| {
    RULES
        .iter()
        .map(|rule| (rule, builtin_regex(rule.pattern)))
        .collect()
});

/// Every secret in `text`.
pub fn find_secrets(text: &str) -> Vec<SecretFinding> {
    let mut findings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut taken: Vec<(usize, usize)> = Vec::new();
        for (rule, regex) in COMPILED.iter() {
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

fn always(_: &Captures<'_>) -> bool {
    true
}

fn named<'t>(captures: &Captures<'t>, name: &str) -> &'t str {
    captures.name(name).map_or("", |m| m.as_str())
}

/// A fixed-format key value (AWS, Azure) that is not an example.
fn random_value(captures: &Captures<'_>) -> bool {
    let value = named(captures, "value");
    !is_placeholder(value) && shannon_entropy(value) >= 3.5
}

/// `sk-` starts ordinary words too (`sk-learn-compatible-estimators`); a
/// key is random, so it mixes upper and lower case and digits.
fn mixed_case_and_digits(captures: &Captures<'_>) -> bool {
    let value = named(captures, "value");
    value.bytes().any(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_lowercase())
}

/// `postgres://postgres:postgres@localhost` is a well-known development
/// default; a real password is a high-entropy literal.
fn url_password(captures: &Captures<'_>) -> bool {
    is_secret_literal(named(captures, "value"))
}

fn assigned_secret(captures: &Captures<'_>) -> bool {
    let quoted = ["dq", "sq", "bq"]
        .iter()
        .find_map(|name| captures.name(name))
        .map(|m| m.as_str());
    match quoted {
        Some(value) => is_secret_literal(value),
        None => {
            let value = named(captures, "bare");
            !is_reference(value) && is_secret_literal(value)
        }
    }
}

/// Entropy (bits per character) above which a literal of at least
/// [`MIN_SECRET_CHARS`] looks random rather than like a word or a name.
const MIN_ENTROPY: f64 = 3.0;
const MIN_SECRET_CHARS: usize = 8;

/// A literal value that looks like a real secret: long enough, not a
/// placeholder, high in entropy, and mixing at least two kinds of character
/// (so that `GITHUB_TOKEN`, `the-deploy-key-in-vault` or `correct horse`
/// pass, while `s3cr3tP@ss` does not).
fn is_secret_literal(value: &str) -> bool {
    value.chars().count() >= MIN_SECRET_CHARS
        && !is_placeholder(value)
        && shannon_entropy(value) >= MIN_ENTROPY
        && character_kinds(value) >= 2
}

/// Text standing for a secret instead of being one: `<password>`, `${VAR}`,
/// `$VAR`, `%VAR%`, `{{ var }}`, `xxxx`, `***`, `changeme`,
/// `your-password-here` …
fn is_placeholder(value: &str) -> bool {
    const WORDS: &[&str] = &[
        "changeme",
        "change-me",
        "change_me",
        "your",
        "example",
        "placeholder",
        "redacted",
        "dummy",
        "sample",
        "replace",
        "here",
        "xxx",
        "fixme",
        "todo",
    ];
    let value = value.trim().to_lowercase();
    let masked = value
        .chars()
        .all(|c| matches!(c, 'x' | '*' | '•' | '…' | '.' | '#' | '?' | '-' | '_'));
    let templated = value.starts_with('<')
        || value.starts_with('$')
        || value.contains("${")
        || value.contains("{{")
        || value.contains("%(")
        || (value.len() > 2 && value.starts_with('%') && value.ends_with('%'));
    masked || templated || WORDS.iter().any(|word| value.contains(word))
}

/// A bare value that points at a secret kept elsewhere: code
/// (`os.getenv(…)`, `settings.API_TOKEN`), a path or a URL.
fn is_reference(value: &str) -> bool {
    static DOTTED_NAME: LazyLock<Regex> = LazyLock::new(|| {
        builtin_regex(r"^[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|->)[A-Za-z_$][A-Za-z0-9_$]*)+$")
    });
    value.contains(['(', '[', '{'])
        || value.contains("://")
        || ["/", "./", "../", "~/"]
            .iter()
            .any(|p| value.starts_with(p))
        || DOTTED_NAME.is_match(value)
}

/// Shannon entropy in bits per character.
fn shannon_entropy(value: &str) -> f64 {
    let mut counts: HashMap<char, usize> = HashMap::new();
    let mut total = 0usize;
    for c in value.chars() {
        *counts.entry(c).or_default() += 1;
        total += 1;
    }
    let total = total as f64;
    counts
        .values()
        .map(|&count| {
            let p = count as f64 / total;
            -p * p.log2()
        })
        .sum()
}

/// How many of lower case, upper case, digits and symbols a value mixes.
/// Word separators (`-`, `_`, `.`, space) are not symbols.
fn character_kinds(value: &str) -> usize {
    let lower = value.chars().any(char::is_lowercase);
    let upper = value.chars().any(char::is_uppercase);
    let digit = value.chars().any(|c| c.is_ascii_digit());
    let symbol = value
        .chars()
        .any(|c| !c.is_alphanumeric() && !c.is_whitespace() && !matches!(c, '-' | '_' | '.'));
    [lower, upper, digit, symbol]
        .into_iter()
        .filter(|&k| k)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const BASE32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const BASE64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    /// A fake random-looking value, built at run time so that this source
    /// file holds no key-shaped literal for secret scanners to flag.
    fn fake_from(alphabet: &str, len: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..len).map(|i| chars[(i * 7 + 3) % chars.len()]).collect()
    }

    fn fake(len: usize) -> String {
        fake_from(ALNUM, len)
    }

    fn digits(len: usize) -> String {
        (0..len)
            .map(|i| char::from(b'0' + ((i * 7 + 1) % 10) as u8))
            .collect()
    }

    fn pem_header(kind: &str) -> String {
        format!("-----BEGIN {kind}{}", "PRIVATE KEY-----")
    }

    /// `before + secret + after` must give exactly one finding of `rule` on
    /// line 1, and no rendering of the findings may show the secret.
    #[rstest]
    #[case::gcp_service_account(
        "gcp-service-account-key",
        r#"{"type": "service_account", "private_key": ""#,
        format!("{}\\n{}\\n", pem_header(""), fake_from(BASE64, 64)),
        r#"", "client_email": "a@b.iam.gserviceaccount.com"}"#
    )]
    #[case::pem_pkcs8("pem-private-key", "", pem_header(""), "")]
    #[case::pem_rsa("pem-private-key", "key: ", pem_header("RSA "), "")]
    #[case::pem_openssh("pem-private-key", "", pem_header("OPENSSH "), "")]
    #[case::pem_encrypted("pem-private-key", "", pem_header("ENCRYPTED "), "")]
    #[case::pem_pgp("pem-private-key", "", format!("-----BEGIN PGP {}", "PRIVATE KEY BLOCK-----"), "")]
    #[case::aws_key_id("aws-access-key-id", "id: ", format!("AKIA{}", fake_from(BASE32, 16)), "")]
    #[case::aws_session_key_id("aws-access-key-id", "(", format!("ASIA{}", fake_from(BASE32, 16)), ")")]
    #[case::aws_secret(
        "aws-secret-access-key",
        "aws_secret_access_key = ",
        fake_from(BASE64, 40),
        ""
    )]
    #[case::aws_secret_env(
        "aws-secret-access-key",
        "export AWS_SECRET_ACCESS_KEY=\"",
        fake_from(BASE64, 40),
        "\""
    )]
    #[case::gcp_api_key("gcp-api-key", "maps key ", format!("AIza{}", fake_from(BASE64URL, 35)), ".")]
    #[case::azure_connection_string(
        "azure-storage-account-key",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=",
        format!("{}==", fake_from(BASE64, 86)),
        ";EndpointSuffix=core.windows.net"
    )]
    #[case::azure_shared_access_key(
        "azure-shared-access-key",
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=",
        format!("{}=", fake_from(BASE64, 43)),
        ""
    )]
    #[case::github_classic("github-token", "token: ", format!("ghp_{}", fake(36)), "")]
    #[case::github_oauth("github-token", "", format!("gho_{}", fake(36)), "")]
    #[case::github_user_to_server("github-token", "", format!("ghu_{}", fake(36)), "")]
    #[case::github_server_to_server("github-token", "", format!("ghs_{}", fake(36)), "")]
    #[case::github_refresh("github-token", "", format!("ghr_{}", fake(36)), "")]
    #[case::github_fine_grained("github-token", "GH_TOKEN=", format!("github_pat_{}_{}", fake(22), fake(59)), "")]
    #[case::gitlab("gitlab-token", "use ", format!("glpat-{}", fake(20)), " for the API")]
    #[case::slack_bot("slack-token", "", format!("xoxb-{}-{}-{}", digits(12), digits(13), fake(24)), "")]
    #[case::slack_user("slack-token", "", format!("xoxp-{}-{}-{}-{}", digits(12), digits(12), digits(13), fake(32)), "")]
    #[case::slack_app("slack-token", "", format!("xoxa-2-{}-{}", digits(12), fake(32)), "")]
    #[case::slack_refresh("slack-token", "", format!("xoxr-{}-{}", digits(12), fake(32)), "")]
    #[case::slack_legacy("slack-token", "", format!("xoxs-{}-{}", digits(12), fake(32)), "")]
    #[case::slack_webhook(
        "slack-webhook",
        "alerts go to ",
        format!("https://hooks.slack.com/services/T{}/B{}/{}", fake_from(BASE32, 8), fake_from(BASE32, 10), fake(24)),
        ""
    )]
    #[case::stripe_live("stripe-secret-key", "", format!("sk_live_{}", fake(24)), "")]
    #[case::stripe_restricted("stripe-secret-key", "", format!("rk_live_{}", fake(24)), "")]
    #[case::stripe_test("stripe-secret-key", "STRIPE_KEY=", format!("sk_test_{}", fake(24)), "")]
    #[case::anthropic("anthropic-api-key", "ANTHROPIC_API_KEY=", format!("sk-ant-api03-{}", fake_from(BASE64URL, 93)), "")]
    #[case::openai_legacy("openai-api-key", "", format!("sk-{}", fake(48)), "")]
    #[case::openai_project("openai-api-key", "key ", format!("sk-proj-{}", fake_from(BASE64URL, 60)), "")]
    #[case::jwt(
        "jwt",
        "Authorization: Bearer ",
        format!("eyJ{}.eyJ{}.{}", fake_from(BASE64URL, 20), fake_from(BASE64URL, 30), fake_from(BASE64URL, 43)),
        ""
    )]
    #[case::url_password(
        "password-in-url",
        "DATABASE_URL=postgres://app:",
        "Xk9#mQ2vL7pR",
        "@db:5432/app"
    )]
    #[case::password_eq("secret-assignment", "password=", fake(16), "")]
    #[case::passwd_colon("secret-assignment", "passwd: ", fake(12), "")]
    #[case::secret_colon("secret-assignment", "secret: ", fake(20), "")]
    #[case::token_eq("secret-assignment", "token=", fake(24), "")]
    #[case::api_key_colon("secret-assignment", "api_key: '", fake(32), "'")]
    #[case::json("secret-assignment", r#"{"password": ""#, "s3cr3tP@ssw0rd!", r#""}"#)]
    #[case::env_prefix("secret-assignment", "export DB_PASSWORD=", fake(14), "")]
    #[case::markdown("secret-assignment", "**Password:** ", fake(14), "")]
    #[case::go_assign("secret-assignment", "clientSecret := \"", fake(18), "\"")]
    #[case::quoted_with_spaces(
        "secret-assignment",
        "passphrase: \"",
        "Correct Horse 9 Battery",
        "\""
    )]
    fn each_rule_finds_its_secret(
        #[case] rule: &'static str,
        #[case] before: &str,
        #[case] secret: String,
        #[case] after: &str,
    ) {
        let text = format!("{before}{secret}{after}");
        let findings = find_secrets(&text);
        assert_eq!(findings, vec![SecretFinding { rule, line: 1 }], "{text}");
        for finding in &findings {
            assert!(!format!("{finding:?}").contains(&secret));
            assert!(!finding.to_string().contains(&secret));
        }
    }

    #[rstest]
    #[case::prose_password("the password is stored in vault".to_string())]
    #[case::prose_colon("Password: ask the on-call engineer".to_string())]
    #[case::angle_placeholder("password: <password>".to_string())]
    #[case::env_braces("password=${DB_PASSWORD}".to_string())]
    #[case::env_dollar("token: $GITHUB_TOKEN".to_string())]
    #[case::windows_env("api_key=%API_KEY%".to_string())]
    #[case::template("secret: {{ vault_secret }}".to_string())]
    #[case::masked_x("secret: xxxxxxxxxxxx".to_string())]
    #[case::masked_stars("password: ************".to_string())]
    #[case::changeme("password: changeme".to_string())]
    #[case::your_password_here("password: your-password-here".to_string())]
    #[case::env_name("api_key: YOUR_API_KEY".to_string())]
    #[case::env_var_name("token: GITHUB_TOKEN".to_string())]
    #[case::short("password: hunter2".to_string())]
    #[case::low_entropy("token: Aa1Aa1Aa1Aa1".to_string())]
    #[case::words("token: the-deploy-token-lives-in-vault".to_string())]
    #[case::call("token = tokenize(text)".to_string())]
    #[case::getenv("password = os.getenv('DB_PASSWORD')".to_string())]
    #[case::dotted("api_key: process.env.OPENAI_API_KEY".to_string())]
    #[case::path("password: /run/secrets/db_password".to_string())]
    #[case::comparison("if password == \"\": raise".to_string())]
    #[case::not_a_key_name("max_tokens: 4096".to_string())]
    #[case::tokenizer("tokenizer: unicode61 remove_diacritics".to_string())]
    #[case::ghp_alone("GitHub classic tokens start with ghp_".to_string())]
    #[case::ghp_short(format!("ghp_{}", fake(10)))]
    #[case::risk_free("a risk-free migration of sk-tables".to_string())]
    #[case::sk_words("sk-learn-compatible-estimators-interface".to_string())]
    #[case::aws_id_short("AKIA1234".to_string())]
    #[case::aws_id_lower(format!("akia{}", fake_from(BASE32, 16).to_lowercase()))]
    #[case::aws_id_in_word(format!("XAKIA{}", fake_from(BASE32, 16)))]
    #[case::aws_secret_placeholder("aws_secret_access_key = <your secret access key>".to_string())]
    #[case::aws_secret_example(format!("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY{}", "EXAMPLEKEY"))]
    #[case::gcp_short(format!("AIza{}", fake(10)))]
    #[case::gcp_service_account_id(r#""type": "service_account", "project_id": "acme""#.to_string())]
    #[case::azure_placeholder("AccountKey=<storage account key>".to_string())]
    #[case::azure_prose("set AccountKey in the connection string".to_string())]
    #[case::azure_shared_name("SharedAccessKeyName=RootManageSharedAccessKey".to_string())]
    #[case::gitlab_alone("GitLab tokens start with glpat-".to_string())]
    #[case::slack_placeholder("SLACK_TOKEN=xoxb-your-bot-token".to_string())]
    #[case::slack_docs("https://api.slack.com/messaging/webhooks".to_string())]
    #[case::slack_webhook_bare("https://hooks.slack.com/services/".to_string())]
    #[case::stripe_publishable(format!("pk_live_{}", fake(24)))]
    #[case::stripe_alone("Stripe live keys start with sk_live_".to_string())]
    #[case::anthropic_alone("Anthropic keys start with sk-ant-".to_string())]
    #[case::jwt_header_only(format!("eyJ{}", fake_from(BASE64URL, 20)))]
    #[case::jwt_two_parts(format!("eyJ{}.eyJ{}", fake_from(BASE64URL, 20), fake_from(BASE64URL, 30)))]
    #[case::public_key(format!("-----BEGIN {}", "PUBLIC KEY-----"))]
    #[case::certificate(format!("-----BEGIN {}", "CERTIFICATE-----"))]
    #[case::url_default_password("postgres://postgres:postgres@localhost:5432/test".to_string())]
    #[case::url_env_password("https://deploy:${DEPLOY_PASSWORD}@example.org".to_string())]
    #[case::url_without_password("https://user@example.org/repo.git".to_string())]
    fn near_misses_are_not_secrets(#[case] text: String) {
        assert_eq!(find_secrets(&text), Vec::<SecretFinding>::new(), "{text}");
    }

    #[test]
    fn every_rule_is_exercised_and_lines_are_counted() {
        let lines = [
            format!(r#""private_key": "{}"#, pem_header("")),
            pem_header(""),
            format!("AKIA{}", fake_from(BASE32, 16)),
            format!("aws_secret_access_key={}", fake_from(BASE64, 40)),
            format!("AIza{}", fake_from(BASE64URL, 35)),
            format!("AccountKey={}==", fake_from(BASE64, 86)),
            format!("SharedAccessKey={}=", fake_from(BASE64, 43)),
            format!("ghp_{}", fake(36)),
            format!("glpat-{}", fake(20)),
            format!("xoxb-{}-{}", digits(12), fake(24)),
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                fake(8),
                fake(10),
                fake(24)
            ),
            format!("sk_live_{}", fake(24)),
            format!("sk-ant-api03-{}", fake(93)),
            format!("sk-proj-{}", fake(60)),
            format!("eyJ{}.eyJ{}.{}", fake(20), fake(30), fake(43)),
            format!("https://app:{}@db", fake(12)),
            format!("password: {}", fake(12)),
        ];
        let text = lines.join("\r\n");
        let found: Vec<(&str, usize)> = find_secrets(&text)
            .iter()
            .map(|f| (f.rule, f.line))
            .collect();
        let expected: Vec<(&str, usize)> = RULES
            .iter()
            .enumerate()
            .map(|(i, r)| (r.name, i + 1))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn one_finding_per_rule_and_line() {
        let text = format!(
            "clean line\nghp_{a} and ghp_{b}\n\npassword={c} token={d}\n",
            a = fake(36),
            b = fake_from(BASE64URL, 40).replace(['-', '_'], "Q"),
            c = fake(12),
            d = fake(16),
        );
        assert_eq!(
            find_secrets(&text),
            vec![
                SecretFinding {
                    rule: "github-token",
                    line: 2
                },
                SecretFinding {
                    rule: "secret-assignment",
                    line: 4
                },
            ]
        );
    }

    #[test]
    fn rule_names_are_unique_kebab_case() {
        let kebab = builtin_regex("^[a-z0-9]+(?:-[a-z0-9]+)*$");
        let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
        assert!(names.iter().all(|n| kebab.is_match(n)), "{names:?}");
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RULES.len());
    }

    #[test]
    fn display_names_rule_and_line() {
        let finding = SecretFinding {
            rule: "github-token",
            line: 3,
        };
        assert_eq!(finding.to_string(), "github-token on line 3");
    }

    #[rstest]
    #[case("aaaaaaaa", 0.0)]
    #[case("abababab", 1.0)]
    #[case("abcdefgh", 3.0)]
    fn entropy_in_bits_per_character(#[case] value: &str, #[case] bits: f64) {
        assert!((shannon_entropy(value) - bits).abs() < 1e-9);
    }
}

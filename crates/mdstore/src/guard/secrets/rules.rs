//! The rule table: the shapes of gitleaks' default rules (cloud providers,
//! forges, chat, payment, AI and developer platforms, JWTs, private keys),
//! plus passwords in assignments, URLs and sentences. See docs/SECRETS.md.
//!
//! Rules run in this order, the most specific first: a match overlapping
//! one already found on the line is the same secret, reported once under
//! the first rule's name (`token=ghp_…` is a GitHub token, `sk-ant-…` is
//! Anthropic's, not OpenAI's).

use super::values::{
    Check, always, assigned_secret, mixed_case_and_digits, password, password_in_prose,
    random_value, two_kinds,
};

pub(super) struct Rule {
    /// Stable kebab-case name shown to users and scripts.
    pub name: &'static str,
    pub pattern: &'static str,
    pub check: Check,
}

/// The separator of a `key: value` / `key = value` assignment, tolerating
/// quotes and Markdown emphasis around the key (`"password":`, `**Token:**`).
macro_rules! assignment {
    ($key:expr, $($value:tt)+) => {
        concat!($key, r#"["'*_]*\s*(?::=|=>|[:=])[*_]*\s*"#, $($value)+)
    };
}

/// A value: quoted (groups `dq`, `sq`, `bq`) or bare up to a space or
/// delimiter (group `bare`).
macro_rules! value {
    () => {
        r#"(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|`(?P<bq>[^`]*)`|(?P<bare>[^\s"'`=,;<>][^\s"'`,;<>]*))"#
    };
}

/// A key that names a provider (`DISCORD_CLIENT_SECRET`, `paypal.secret`),
/// assigned a random value of `$chars`: gitleaks' "semi-generic" rules.
macro_rules! provider_secret {
    ($provider:literal, $chars:literal) => {
        assignment!(
            concat!("(?i:[A-Za-z0-9_.\\-]*", $provider, "[A-Za-z0-9_.\\-]*)"),
            "[\"'`]?(?P<value>",
            $chars,
            ")(?:[^A-Za-z0-9_\\-]|$)"
        )
    };
}

macro_rules! rule {
    ($name:literal, $pattern:expr) => {
        rule!($name, $pattern, always)
    };
    ($name:literal, $pattern:expr, $check:expr) => {
        Rule {
            name: $name,
            pattern: $pattern,
            check: $check,
        }
    };
}

pub(super) const RULES: &[Rule] = &[
    // Private keys.
    rule!(
        "gcp-service-account-key",
        r#""private_key"\s*:\s*"-----BEGIN[A-Z ]*PRIVATE KEY-----"#
    ),
    rule!(
        "pem-private-key",
        r"-----BEGIN[ A-Z0-9_\-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
    ),
    rule!("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    // Cloud providers.
    rule!(
        "aws-access-key-id",
        r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?-u:\b)"
    ),
    rule!(
        "aws-secret-access-key",
        assignment!(
            r"(?i:[A-Za-z0-9_.\-]*(?:aws[A-Za-z0-9_.\-]*(?:secret|key)|secret_?access_?key)[A-Za-z0-9_.\-]*)",
            r#"["'`]?(?P<value>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#
        ),
        random_value
    ),
    rule!(
        "gcp-api-key",
        r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}(?:[^0-9A-Za-z_\-]|$)"
    ),
    rule!(
        "gcp-oauth-client-secret",
        r"(?-u:\b)GOCSPX-[0-9A-Za-z_\-]{28}"
    ),
    rule!(
        "gcp-oauth-access-token",
        r"(?-u:\b)ya29\.(?P<value>[0-9A-Za-z_\-]{30,})",
        mixed_case_and_digits
    ),
    rule!(
        "azure-storage-account-key",
        r"(?i:AccountKey)\s*=\s*(?P<value>[A-Za-z0-9+/]{40,}={0,2})",
        random_value
    ),
    rule!(
        "azure-shared-access-key",
        r"(?i:SharedAccessKey)\s*=\s*(?P<value>[A-Za-z0-9+/]{30,}={0,2})",
        random_value
    ),
    rule!(
        "azure-ad-client-secret",
        r#"(?:^|[\\'"`\s>=:(,)])(?P<value>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34})(?:$|[\\'"`\s<),])"#,
        random_value
    ),
    rule!(
        "azure-sas-signature",
        r"(?i:[?&;]sig)=(?P<value>[A-Za-z0-9%+/]{40,}={0,2})",
        random_value
    ),
    // Forges.
    rule!(
        "github-token",
        r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})(?-u:\b)"
    ),
    rule!(
        "gitlab-token",
        r"(?-u:\b)(?:(?:glpat|gldt|glrt|glptt|glft|glsoat|glcbt|glimt|glagent|gloas)-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,})"
    ),
    rule!(
        "atlassian-api-token",
        r"(?-u:\b)ATATT3[A-Za-z0-9_\-=]{100,}"
    ),
    rule!(
        "bitbucket-app-password",
        r"(?-u:\b)ATBB(?P<value>[A-Za-z0-9]{32,})(?-u:\b)",
        two_kinds
    ),
    rule!(
        "bitbucket-client-secret",
        provider_secret!("bitbucket", "[A-Za-z0-9=_\\-]{32,}"),
        random_value
    ),
    // Chat.
    rule!(
        "slack-token",
        r"(?-u:\b)(?:xox[abeprs]-(?:[0-9]+-)+[0-9A-Za-z]{8,}|xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]+|xoxe(?:\.xox[bp])?-[0-9]-[A-Z0-9]{100,})"
    ),
    rule!(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+\-]{20,}"
    ),
    rule!(
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_\-]{50,}"
    ),
    rule!(
        "discord-bot-token",
        r"(?-u:\b)(?P<value>[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40})(?:[^A-Za-z0-9_\-.]|$)",
        mixed_case_and_digits
    ),
    rule!(
        "discord-client-secret",
        provider_secret!("discord", "[A-Za-z0-9_\\-]{32,}"),
        random_value
    ),
    rule!(
        "telegram-bot-token",
        r"(?-u:\b)[0-9]{5,16}:A[A-Za-z0-9_\-]{34}(?:[^A-Za-z0-9_\-]|$)"
    ),
    // Payment and commerce.
    rule!(
        "stripe-secret-key",
        r"(?-u:\b)(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{10,}"
    ),
    rule!(
        "square-access-token",
        r"(?-u:\b)(?:EAAA|sq0atp-)(?P<value>[A-Za-z0-9_\-]{22,60})(?-u:\b)",
        random_value
    ),
    rule!("square-oauth-secret", r"(?-u:\b)sq0csp-[A-Za-z0-9_\-]{43}"),
    rule!(
        "paypal-braintree-access-token",
        r"access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}"
    ),
    rule!(
        "paypal-client-secret",
        provider_secret!("paypal", "[A-Za-z0-9_\\-]{32,}"),
        random_value
    ),
    rule!(
        "shopify-token",
        r"(?-u:\b)shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"
    ),
    // AI and developer platforms.
    rule!("anthropic-api-key", r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{20,}"),
    rule!(
        "openai-api-key",
        r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?(?P<value>[A-Za-z0-9_\-]{20,})",
        mixed_case_and_digits
    ),
    rule!(
        "huggingface-token",
        r"(?-u:\b)hf_(?P<value>[A-Za-z]{34})(?-u:\b)",
        two_kinds
    ),
    rule!("groq-api-key", r"(?-u:\b)gsk_[A-Za-z0-9]{52}(?-u:\b)"),
    rule!("npm-token", r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)"),
    rule!("pypi-token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    rule!(
        "sendgrid-api-key",
        r"(?-u:\b)SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"
    ),
    rule!(
        "twilio-api-key",
        r"(?-u:\b)SK(?P<value>[0-9a-fA-F]{32})(?-u:\b)",
        two_kinds
    ),
    rule!(
        "mailgun-api-key",
        r"(?-u:\b)key-(?P<value>[0-9a-f]{32})(?-u:\b)",
        two_kinds
    ),
    rule!(
        "mailchimp-api-key",
        r"(?-u:\b)(?P<value>[0-9a-f]{32})-us[0-9]{1,2}(?-u:\b)",
        two_kinds
    ),
    rule!("digitalocean-token", r"(?-u:\b)do[opr]_v1_[a-f0-9]{64}"),
    rule!(
        "databricks-token",
        r"(?-u:\b)dapi[a-f0-9]{32}(?:-[0-9])?(?-u:\b)"
    ),
    rule!(
        "hashicorp-vault-token",
        r"(?-u:\b)hv[sb]\.[A-Za-z0-9_\-]{90,}"
    ),
    rule!(
        "terraform-cloud-token",
        r"(?-u:\b)[a-z0-9]{14}\.atlasv1\.[a-z0-9_=\-]{60,70}"
    ),
    rule!("doppler-token", r"(?-u:\b)dp\.pt\.[A-Za-z0-9]{43}"),
    rule!("linear-api-key", r"(?-u:\b)lin_api_[A-Za-z0-9]{40}"),
    rule!("postman-api-key", r"(?-u:\b)PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    rule!("pulumi-token", r"(?-u:\b)pul-[a-f0-9]{40}"),
    rule!(
        "grafana-token",
        r"(?-u:\b)(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"
    ),
    rule!("sentry-token", r"(?-u:\b)sntry[su]_[A-Za-z0-9+/=_]{40,}"),
    rule!("facebook-access-token", r"(?-u:\b)EAA[MC][A-Za-z0-9]{100,}"),
    rule!(
        "heroku-api-key",
        provider_secret!(
            "heroku",
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
        )
    ),
    // Tokens in general.
    rule!(
        "jwt",
        r"(?-u:\b)eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{10,}"
    ),
    rule!(
        "authorization-header",
        r"(?-u:\b)(?i:bearer|basic)\s+(?P<value>[A-Za-z0-9._~+/\-]{16,}=*)",
        assigned_secret
    ),
    // Passwords.
    rule!(
        "password-in-url",
        // The user may be empty: `redis://:password@cache`.
        r"(?i:[a-z][a-z0-9+.\-]*)://[^\s/:@]*:(?P<value>[^\s/@]+)@",
        password
    ),
    rule!(
        "password-in-user-option",
        // curl's and wget's `-u user:password`, `--user=user:password`.
        r#"(?:^|[\s"'`])(?:-u|--user)(?:\s+|=)["']?[^\s:"'`@/]+:(?P<bare>[^\s"'`]+)"#,
        password
    ),
    rule!(
        "password-assignment",
        assignment!(
            r"(?-u:\b)(?i:[a-z0-9_.\-]*(?:password|passwd|passphrase|pwd))",
            value!()
        ),
        password
    ),
    rule!(
        "password-in-prose",
        r#"(?-u:\b)(?i:pass(?:word|phrase|wd)s?(?:\s+(?:for|of|to|on)\s+(?:the\s+|an?\s+)?[^\s]+(?:\s+[^\s]+)?)?(?:\s+(?P<verb>(?:is|was)(?:\s+now)?(?:\s+set\s+to)?|set\s+to))?)\s+(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|`(?P<bq>[^`]*)`|(?P<bare>[^\s"'`]+))"#,
        password_in_prose
    ),
    rule!(
        "password-in-prose-cjk",
        r#"(?:비밀번호|패스워드|암호|密码|密碼|口令|パスワード)\s*(?:는|은|가|:|：|是|为|為|は|=)\s*["'`「“]?(?P<value>[!-~]+)"#,
        password
    ),
    rule!(
        "secret-assignment",
        assignment!(
            r"(?-u:\b)(?P<key>(?i:[a-z0-9_.\-]*(?:secret|token|api[_\-]?key|apikey|(?:access|auth|private|client|signing|encryption|master|secret|session|app)[_\-]?key|credentials?)))",
            value!()
        ),
        assigned_secret
    ),
];

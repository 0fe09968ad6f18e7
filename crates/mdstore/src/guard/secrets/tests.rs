use super::*;
use crate::guard::secrets::values::shannon_entropy;
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
    (0..len)
        .map(|i| chars[(i * 37 + 11) % chars.len()])
        .collect()
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
#[case::password_eq("password-assignment", "password=", fake(16), "")]
#[case::passwd_colon("password-assignment", "passwd: ", fake(12), "")]
#[case::secret_colon("secret-assignment", "secret: ", fake(20), "")]
#[case::token_eq("secret-assignment", "token=", fake(24), "")]
#[case::api_key_colon("secret-assignment", "api_key: '", fake(32), "'")]
#[case::json("password-assignment", r#"{"password": ""#, "s3cr3tP@ssw0rd!", r#""}"#)]
#[case::env_prefix("password-assignment", "export DB_PASSWORD=", fake(14), "")]
#[case::markdown("password-assignment", "**Password:** ", fake(14), "")]
#[case::go_assign("secret-assignment", "clientSecret := \"", fake(18), "\"")]
#[case::quoted_with_spaces(
    "password-assignment",
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
#[case::short("password: hunt3".to_string())]
#[case::plain_word("password: postgres".to_string())]
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

const HEX: &str = "0123456789abcdef";
const LOWER_ALNUM: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn hex(len: usize) -> String {
    fake_from(HEX, len)
}

/// One line per rule, in the order the rules run.
fn one_example_per_rule() -> Vec<(&'static str, String)> {
    let uuid = format!("{}-{}-{}-{}-{}", hex(8), hex(4), hex(4), hex(4), hex(12));
    vec![
        (
            "gcp-service-account-key",
            format!(r#""private_key": "{}"#, pem_header("")),
        ),
        ("pem-private-key", pem_header("")),
        (
            "age-secret-key",
            format!("AGE-SECRET-KEY-1{}", fake_from(BASE32, 58)),
        ),
        (
            "aws-access-key-id",
            format!("AKIA{}", fake_from(BASE32, 16)),
        ),
        (
            "aws-secret-access-key",
            format!("aws_secret_access_key={}", fake_from(BASE64, 40)),
        ),
        ("gcp-api-key", format!("AIza{}", fake_from(BASE64URL, 35))),
        (
            "gcp-oauth-client-secret",
            format!("GOCSPX-{}", fake_from(BASE64URL, 28)),
        ),
        (
            "gcp-oauth-access-token",
            format!("ya29.{}", fake_from(BASE64URL, 60)),
        ),
        (
            "azure-storage-account-key",
            format!("AccountKey={}==", fake_from(BASE64, 86)),
        ),
        (
            "azure-shared-access-key",
            format!("SharedAccessKey={}=", fake_from(BASE64, 43)),
        ),
        (
            "azure-ad-client-secret",
            format!("client_secret={}8Q~{}", fake(3), fake(32)),
        ),
        (
            "azure-sas-signature",
            format!(
                "https://acme.blob.core.windows.net/c?sv=2022-11-02&sig={}",
                fake_from(BASE64, 43)
            ),
        ),
        ("github-token", format!("ghp_{}", fake(36))),
        ("gitlab-token", format!("glpat-{}", fake(20))),
        (
            "atlassian-api-token",
            format!("ATATT3{}", fake_from(BASE64URL, 186)),
        ),
        ("bitbucket-app-password", format!("ATBB{}", fake(32))),
        (
            "bitbucket-client-secret",
            format!("BITBUCKET_CLIENT_SECRET={}", fake_from(BASE64URL, 64)),
        ),
        ("slack-token", format!("xoxb-{}-{}", digits(12), fake(24))),
        (
            "slack-webhook",
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                fake(8),
                fake(10),
                fake(24)
            ),
        ),
        (
            "discord-webhook",
            format!(
                "https://discord.com/api/webhooks/{}/{}",
                digits(18),
                fake_from(BASE64URL, 68)
            ),
        ),
        (
            "discord-bot-token",
            format!("M{}.{}.{}", fake(25), fake(6), fake(38)),
        ),
        (
            "discord-client-secret",
            format!("DISCORD_CLIENT_SECRET={}", fake(32)),
        ),
        (
            "telegram-bot-token",
            format!("{}:A{}", digits(10), fake(34)),
        ),
        ("stripe-secret-key", format!("sk_live_{}", fake(24))),
        (
            "square-access-token",
            format!("sq0atp-{}", fake_from(BASE64URL, 22)),
        ),
        (
            "square-oauth-secret",
            format!("sq0csp-{}", fake_from(BASE64URL, 43)),
        ),
        (
            "paypal-braintree-access-token",
            format!(
                "access_token$production${}${}",
                fake_from(LOWER_ALNUM, 16),
                hex(32)
            ),
        ),
        (
            "paypal-client-secret",
            format!("PAYPAL_CLIENT_SECRET={}", fake_from(BASE64URL, 80)),
        ),
        ("shopify-token", format!("shpat_{}", hex(32))),
        ("anthropic-api-key", format!("sk-ant-api03-{}", fake(93))),
        ("openai-api-key", format!("sk-proj-{}", fake(60))),
        (
            "huggingface-token",
            format!("hf_{}", fake_from(LETTERS, 34)),
        ),
        ("groq-api-key", format!("gsk_{}", fake(52))),
        ("npm-token", format!("npm_{}", fake(36))),
        (
            "pypi-token",
            format!("pypi-AgEIcHlwaS5vcmc{}", fake_from(BASE64URL, 70)),
        ),
        (
            "sendgrid-api-key",
            format!(
                "SG.{}.{}",
                fake_from(BASE64URL, 22),
                fake_from(BASE64URL, 43)
            ),
        ),
        ("twilio-api-key", format!("SK{}", hex(32))),
        ("mailgun-api-key", format!("key-{}", hex(32))),
        ("mailchimp-api-key", format!("{}-us21", hex(32))),
        ("digitalocean-token", format!("dop_v1_{}", hex(64))),
        ("databricks-token", format!("dapi{}", hex(32))),
        (
            "hashicorp-vault-token",
            format!("hvs.{}", fake_from(BASE64URL, 95)),
        ),
        (
            "terraform-cloud-token",
            format!(
                "{}.atlasv1.{}",
                fake_from(LOWER_ALNUM, 14),
                fake_from(LOWER_ALNUM, 67)
            ),
        ),
        ("doppler-token", format!("dp.pt.{}", fake(43))),
        ("linear-api-key", format!("lin_api_{}", fake(40))),
        ("postman-api-key", format!("PMAK-{}-{}", hex(24), hex(34))),
        ("pulumi-token", format!("pul-{}", hex(40))),
        ("grafana-token", format!("glsa_{}_{}", fake(32), hex(8))),
        ("sentry-token", format!("sntryu_{}", hex(64))),
        ("facebook-access-token", format!("EAAC{}", fake(120))),
        ("heroku-api-key", format!("HEROKU_API_KEY={uuid}")),
        (
            "jwt",
            format!("eyJ{}.eyJ{}.{}", fake(20), fake(30), fake(43)),
        ),
        (
            "authorization-header",
            format!("Authorization: Bearer {}", fake_from(BASE64URL, 40)),
        ),
        ("password-in-url", format!("https://app:{}@db", fake(12))),
        (
            "password-in-user-option",
            format!("curl -u app:{} https://api", fake(12)),
        ),
        (
            "password-assignment",
            "DB_PASSWORD=hunter2hunter2".to_string(),
        ),
        (
            "password-in-prose",
            "the database password is hunter2hunter2.".to_string(),
        ),
        (
            "password-in-prose-cjk",
            "데이터베이스 비밀번호는 hunter2hunter2".to_string(),
        ),
        ("secret-assignment", format!("token: {}", fake(24))),
    ]
}

#[test]
fn every_rule_is_exercised_and_lines_are_counted() {
    let examples = one_example_per_rule();
    let names: Vec<&str> = examples.iter().map(|(rule, _)| *rule).collect();
    assert_eq!(names, rule_names().collect::<Vec<_>>());
    let text = examples
        .iter()
        .map(|(_, line)| line.as_str())
        .collect::<Vec<_>>()
        .join("\r\n");
    let found: Vec<(&str, usize)> = find_secrets(&text)
        .iter()
        .map(|f| (f.rule, f.line))
        .collect();
    let expected: Vec<(&str, usize)> = names.iter().enumerate().map(|(i, r)| (*r, i + 1)).collect();
    assert_eq!(found, expected);
}

/// The leaks issue 6 found: each was saved with exit 0.
#[rstest]
#[case::db_password_assignment_was_saved("DB_PASSWORD=hunter2hunter2", "password-assignment")]
#[case::password_in_prose_was_saved("the database password is hunter2hunter2", "password-in-prose")]
#[case::appended_password_line_was_saved("password: hunter2hunter2", "password-assignment")]
#[case::short_password_was_saved("password: hunter2", "password-assignment")]
#[case::password_in_connection_url_was_saved(
    "postgres://app:hunter2hunter2@db:5432/app",
    "password-in-url"
)]
#[case::ado_connection_string_password_was_saved(
    "Server=db;Database=app;User Id=app;Password=hunter2hunter2;",
    "password-assignment"
)]
#[case::url_password_with_empty_user_was_saved("redis://:zQ9xK2mLp6@cache:6379", "password-in-url")]
#[case::curl_user_option_password_was_saved(
    "curl -u admin:Tr0ub4dor&9 https://api",
    "password-in-user-option"
)]
#[case::curl_long_user_option_password_was_saved(
    "curl --user=deploy:Tr0ub4dor&9 https://api",
    "password-in-user-option"
)]
#[case::prose_password_without_is_was_saved(
    "login with user admin and password Tr0ub4dor&7",
    "password-in-prose"
)]
fn leaked_password_is_refused(#[case] text: &str, #[case] rule: &'static str) {
    assert_eq!(
        find_secrets(text),
        vec![SecretFinding { rule, line: 1 }],
        "{text}"
    );
}

#[test]
fn aws_documentation_secret_key_is_a_secret() {
    // The shape of a real key; a memory is no place for either.
    let text = format!(
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY{}",
        "EXAMPLEKEY"
    );
    assert_eq!(
        find_secrets(&text),
        vec![SecretFinding {
            rule: "aws-secret-access-key",
            line: 1
        }]
    );
}

#[rstest]
#[case::empty_value("password: ")]
#[case::reset_flow("the password reset flow sends an email")]
#[case::hashed("Passwords are hashed with argon2id.")]
#[case::rule_prose("the password is at least 12 characters long")]
#[case::required("password is required")]
#[case::masked_prose("the password is ********")]
#[case::env_self("PGPASSWORD=$PGPASSWORD")]
#[case::env_name_value("password: DB_PASSWORD")]
#[case::changeme_digits("password: changeme123")]
#[case::min_length("password_min_length: 12")]
#[case::hash_key("password_hash: argon2id")]
#[case::bracket_placeholder("DB_PASSWORD=[value]")]
#[case::cjk_prose("비밀번호는 관리자에게 물어보세요")]
#[case::password_field("the password field is hidden")]
#[case::password_then_word("reset the password before 2026-01-01")]
#[case::password_hashing("password argon2id-hashed with 64MiB")]
#[case::password_policy("password must have 12+ chars")]
#[case::password_env_reference("login with password $ADMIN_PASSWORD")]
#[case::url_port_only("see http://:8080 for the admin page")]
#[case::curl_user_only("curl -u admin https://api")]
#[case::curl_env_credentials("curl -u $API_USER:$API_PASSWORD https://api")]
#[case::docker_user_ids("docker run -u 1000:1000 image")]
#[case::docker_user_group("docker run -u www-data:www-data image")]
fn password_near_misses_are_not_secrets(#[case] text: &str) {
    assert_eq!(find_secrets(text), Vec::<SecretFinding>::new(), "{text}");
}

#[test]
fn one_finding_per_rule_and_line() {
    let text = format!(
        "clean line\nghp_{a} and ghp_{b}\n\nsecret={c} token={d}\n",
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
    let mut names: Vec<&str> = rule_names().collect();
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

/// The word test (`Desktop/Title/H1` is not a token) must not excuse random
/// tokens: of 10,000 random base62 values of 16 to 48 characters, at most
/// 0.5% may pass for words.
#[test]
fn random_tokens_are_not_taken_for_words() {
    let alphabet: Vec<char> = ALNUM.chars().collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    let missed = (0..10_000)
        .filter(|_| {
            let length = 16 + next(33);
            let token: String = (0..length)
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            find_secrets(&format!("api_key: {token}")).is_empty()
        })
        .count();
    assert!(missed <= 50, "{missed} of 10000 random tokens missed");
}

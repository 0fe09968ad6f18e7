//! English memories: facts about a service (`{x}`) or a person (`{p}`), with
//! questions phrased as people ask them. Question kinds: `overlap` shares
//! content words with the description, `forms` needs stemming to match,
//! `paraphrase` shares little but the subject.

use super::generate::{Fact, Language};
use mdstore::RecordType::{Feedback, Project, Reference, User};

pub(super) const LANGUAGE: Language = Language {
    code: "en",
    subjects: &[
        "billing",
        "search",
        "checkout",
        "inventory",
        "payroll",
        "analytics",
        "gateway",
        "scheduler",
        "notifications",
        "ledger",
        "catalog",
        "onboarding",
        "reporting",
        "webhooks",
        "identity",
    ],
    people: &[
        "Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jun", "Kofi",
        "Lena",
    ],
    fillers: &[
        "This came up in the weekly sync.",
        "Ask in the team channel if anything is unclear.",
        "Last reviewed during spring planning.",
        "See also the onboarding notes for context.",
        "The decision can be revisited next quarter.",
        "Nobody objected when it was proposed.",
    ],
    mentions: &[
        "Weekly sync notes: {a}, {b} and {c} discussed deploys, tests and dashboards; no \
         decisions yet.",
        "Q3 planning: the {a} and {b} teams will review their runbooks and release process.",
        "Incident retro: the {a} outage was caused by a bad database migration; {b} was not \
         affected. Action items are tracked in Linear.",
        "{a} and {b} share one Postgres cluster; see the database notes before changing it.",
        "Onboarding checklist: get access to the {a} dashboards, the {b} logs and the on-call \
         rotation.",
        "{p} and {q} pair on {a} code reviews on Thursdays.",
        "{p} asked whether {a} could adopt the {b} API versioning and logging conventions.",
        "Holiday schedule: {p} is away; {q} covers {a} releases and incidents.",
    ],
    facts: &[
        Fact {
            kind: Project,
            name: "{x}-deploy-freeze",
            description: "Deploy freeze for {x} over the holidays",
            body: "We decided to freeze all {x} deploys from December 20 until January 3. \
                   The freeze came after the outage last winter. Hotfixes need sign-off from \
                   the on-call lead.",
            tags: "deploy release",
            questions: &[
                (
                    "what did we decide about the deploy freeze for {x}?",
                    "overlap",
                ),
                ("can I ship {x} changes during the holidays?", "paraphrase"),
                ("when are {x} deployments frozen?", "forms"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-tests-use-pytest",
            description: "Tests for {x} use pytest, never unittest",
            body: "The user corrected this twice: new {x} tests are written as pytest \
                   functions with fixtures, not unittest.TestCase classes. CI only runs pytest.",
            tags: "testing python",
            questions: &[
                ("which test framework does {x} use?", "forms"),
                ("should I write unittest classes for {x}?", "overlap"),
                ("how do we write tests in {x}?", "paraphrase"),
            ],
        },
        Fact {
            kind: User,
            name: "{x}-short-reviews",
            description: "Prefers short review comments on {x} pull requests",
            body: "Keep review comments on {x} PRs brief and batch them; the user dislikes long \
                   review threads and would rather have a call for anything contentious.",
            tags: "review",
            questions: &[
                ("how does the user like {x} code reviews?", "forms"),
                ("should my review notes on {x} be long?", "paraphrase"),
                (
                    "preferred style of comments on {x} pull requests",
                    "overlap",
                ),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-latency-dashboard",
            description: "Grafana dashboard for {x} latency",
            body: "Latency and error rates of {x} are on the Grafana board svc-{x}, folder \
                   Production. Alerts page the platform team.",
            tags: "monitoring",
            questions: &[
                ("where can I see {x} latency graphs?", "overlap"),
                ("which dashboard shows errors for {x}?", "forms"),
                ("where are the {x} metrics?", "paraphrase"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-postgres-migration",
            description: "{x} moves from MySQL to Postgres",
            body: "Decided in the architecture review: {x} migrates its database from MySQL to \
                   PostgreSQL in Q3. Reason: we need JSONB and better replication. Dual writes \
                   run for two weeks.",
            tags: "database",
            questions: &[
                ("why is {x} migrating to postgres?", "forms"),
                ("what database will {x} use?", "paraphrase"),
                ("when does the {x} move off MySQL happen?", "overlap"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-no-force-push",
            description: "Never force-push to the {x} main branch",
            body: "The user was upset when a force push rewrote {x} history. Always open a pull \
                   request and merge; rebasing shared branches is not allowed.",
            tags: "git",
            questions: &[
                ("am I allowed to force push on {x}?", "overlap"),
                ("how should I get changes into {x} main?", "paraphrase"),
                ("rules for rewriting the git history of {x}", "forms"),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-runbook",
            description: "On-call runbook for {x} incidents",
            body: "The incident runbook for {x} lives in the wiki under Ops/Runbooks. It covers \
                   paging, rollback steps and the status page.",
            tags: "oncall",
            questions: &[
                ("where is the {x} runbook?", "overlap"),
                ("how do I roll back {x} during an incident?", "forms"),
                ("what to do when {x} is down?", "paraphrase"),
            ],
        },
        Fact {
            kind: User,
            name: "{p}-works-from-lisbon",
            description: "{p} works remotely from Lisbon and prefers async updates",
            body: "{p} is based in Lisbon (UTC+0, UTC+1 in summer). Prefers written async status \
                   updates over meetings; avoid scheduling calls after 17:00 local time.",
            tags: "team",
            questions: &[
                ("what timezone is {p} in?", "paraphrase"),
                ("does {p} like meetings?", "forms"),
                ("when can I schedule a call with {p}?", "forms"),
            ],
        },
        Fact {
            kind: User,
            name: "{p}-editor-setup",
            description: "{p} uses Neovim with four-space indentation",
            body: "{p}'s editor is Neovim; indentation is four spaces, never tabs in Python. \
                   Format with black before committing.",
            tags: "tooling",
            questions: &[
                ("which editor does {p} use?", "overlap"),
                ("how does {p} indent code?", "forms"),
                ("what formatter does {p} like?", "paraphrase"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-api-versioning",
            description: "The public {x} API is versioned in the URL path",
            body: "We chose path versioning (/v2/...) for the {x} API over header versioning \
                   because caching proxies ignore custom headers. Old versions are supported \
                   for twelve months.",
            tags: "api",
            questions: &[
                ("how do we version the {x} api?", "forms"),
                ("why not use headers for {x} versions?", "forms"),
                ("how long do old {x} endpoints keep working?", "paraphrase"),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-bug-tracker",
            description: "{x} bugs are tracked in Linear",
            body: "File {x} bugs in Linear, team Core, project tag {x}. Security issues go to \
                   the private security tracker instead.",
            tags: "issues",
            questions: &[
                ("where do I file a bug for {x}?", "overlap"),
                ("which tracker has the {x} issues?", "forms"),
                ("where to report a {x} vulnerability?", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-structured-logs",
            description: "Use structured JSON logs in {x}",
            body: "Corrected: {x} logs must be structured JSON with a request id field; \
                   printf-style log lines break the log pipeline.",
            tags: "logging",
            questions: &[
                ("what log format should {x} use?", "overlap"),
                ("can I print debug lines in {x}?", "paraphrase"),
                ("how should {x} logging look?", "forms"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-release-cadence",
            description: "{x} releases every second Tuesday",
            body: "Release train for {x}: every other Tuesday, cut from main on Monday evening. \
                   Skipped releases roll into the next train.",
            tags: "release",
            questions: &[
                ("how often does {x} get released?", "forms"),
                ("when is the next {x} release branch cut?", "overlap"),
                ("what is the shipping schedule of {x}?", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-small-pull-requests",
            description: "Keep {x} pull requests under 400 lines",
            body: "The user asked for small pull requests on {x}: under 400 changed lines, one \
                   concern each. Large refactors are split into a stack.",
            tags: "review",
            questions: &[
                ("how big can a {x} pull request be?", "overlap"),
                ("should I split a large refactoring of {x}?", "forms"),
                ("limit on the size of {x} changes", "paraphrase"),
            ],
        },
    ],
};

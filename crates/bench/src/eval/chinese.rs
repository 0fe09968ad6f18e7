//! Chinese memories, the same kinds of facts as the English set written the
//! way Chinese teams write them: unspaced, with Latin tool names mixed in.

use super::generate::{Fact, Language};
use mdstore::RecordType::{Feedback, Project, Reference, User};

pub(super) const LANGUAGE: Language = Language {
    code: "zh",
    subjects: &[
        "账单",
        "搜索",
        "结算",
        "库存",
        "薪资",
        "数据分析",
        "网关",
        "调度",
        "通知",
        "账本",
        "商品目录",
        "入职",
        "报表",
        "支付",
        "身份认证",
    ],
    people: &[
        "张伟", "李娜", "王芳", "刘洋", "陈静", "杨磊", "赵敏", "黄勇", "周杰", "吴婷", "郑浩",
        "孙丽",
    ],
    fillers: &[
        "这是在周会上讨论过的。",
        "如果有不清楚的地方，在团队群里问。",
        "上次复查是在春季规划的时候。",
        "背景可以参考入职文档。",
        "这个决定下个季度可以重新讨论。",
        "提出的时候没有人反对。",
    ],
    mentions: &[
        "周会记录：讨论了{a}、{b}和{c}的部署、测试和看板，暂无决定。",
        "第三季度规划：{a}和{b}团队要复查值班手册和发布流程。",
        "故障复盘：{a}的故障由一次错误的数据库迁移引起；{b}没受影响。后续事项记在 Linear。",
        "{a}和{b}共用同一个 Postgres 集群；改动前先看数据库说明。",
        "入职清单：申请{a}看板、{b}日志和值班轮换的权限。",
        "{p}和{q}每周四一起评审{a}的代码。",
        "{p}问{a}能不能沿用{b}的 API 版本和日志约定。",
        "节假日安排：{p}休假，{q}负责{a}的发布和故障。",
    ],
    facts: &[
        Fact {
            kind: Project,
            name: "{x}-部署冻结",
            description: "{x}服务节假日期间冻结部署",
            body: "我们决定从12月20日到1月3日冻结{x}服务的所有部署。这是去年冬天那次故障之后定下的。\
                   紧急修复需要值班负责人批准。",
            tags: "部署 发布",
            questions: &[
                ("我们的{x}部署冻结是怎么定的？", "overlap"),
                ("节假日能上线{x}的改动吗？", "paraphrase"),
                ("{x}什么时候不能部署？", "overlap"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-测试用pytest",
            description: "{x}的测试一律用 pytest，不用 unittest",
            body: "用户纠正过两次：{x}的新测试写成 pytest 函数和 fixture，不写 unittest.TestCase 类。\
                   CI 只跑 pytest。",
            tags: "测试 python",
            questions: &[
                ("{x}用什么测试框架？", "overlap"),
                ("{x}可以写 unittest 的类吗？", "overlap"),
                ("{x}的单元测试应该怎么写？", "paraphrase"),
            ],
        },
        Fact {
            kind: User,
            name: "{x}-简短评审",
            description: "喜欢简短的{x}代码评审意见",
            body: "{x}合并请求的评审意见要简短，集中提出；用户不喜欢冗长的评审讨论，有争议的事情宁可开个会。",
            tags: "评审",
            questions: &[
                ("用户希望{x}的代码评审是什么风格？", "overlap"),
                ("{x}的审查意见可以写很长吗？", "paraphrase"),
                ("{x}合并请求的评论要注意什么？", "overlap"),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-延迟看板",
            description: "{x}延迟的 Grafana 看板",
            body: "{x}的延迟和错误率在 Grafana 看板 svc-{x} 上，文件夹 Production。告警会呼叫平台组。",
            tags: "监控",
            questions: &[
                ("在哪里看{x}的延迟图表？", "overlap"),
                ("哪个看板显示{x}的错误？", "overlap"),
                ("{x}的监控指标在哪？", "paraphrase"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-迁移postgres",
            description: "{x}从 MySQL 迁移到 Postgres",
            body: "架构评审决定：{x}在第三季度把数据库从 MySQL 迁移到 PostgreSQL。原因是需要 JSONB \
                   和更好的复制。双写持续两周。",
            tags: "数据库",
            questions: &[
                ("{x}为什么要换到 postgres？", "overlap"),
                ("{x}以后用什么数据库？", "overlap"),
                ("{x}什么时候不再用 MySQL？", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-禁止强推",
            description: "禁止对{x}主分支强制推送",
            body: "有一次强制推送改写了{x}的历史，用户很不高兴。始终先开合并请求再合并；不允许对共享分支变基。",
            tags: "git",
            questions: &[
                ("{x}可以强制推送吗？", "overlap"),
                ("怎么把改动合进{x}的主分支？", "overlap"),
                ("{x}的 git 历史能改写吗？", "paraphrase"),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-值班手册",
            description: "{x}故障值班手册",
            body: "{x}的故障处理手册在维基的 Ops/Runbooks 下，包括呼叫、回滚步骤和状态页。",
            tags: "值班",
            questions: &[
                ("{x}的值班手册在哪？", "overlap"),
                ("{x}出故障时怎么回滚？", "overlap"),
                ("{x}挂了该怎么办？", "paraphrase"),
            ],
        },
        Fact {
            kind: User,
            name: "{p}-里斯本远程",
            description: "{p}在里斯本远程办公，喜欢异步沟通",
            body: "{p}在里斯本（UTC+0，夏令时 UTC+1）。比起开会更喜欢书面的异步进度更新；\
                   不要安排当地时间17点以后的电话会议。",
            tags: "团队",
            questions: &[
                ("{p}在哪个时区？", "paraphrase"),
                ("{p}喜欢开会吗？", "overlap"),
                ("什么时候适合约{p}打电话？", "overlap"),
            ],
        },
        Fact {
            kind: User,
            name: "{p}-编辑器",
            description: "{p}用 Neovim，缩进四个空格",
            body: "{p}的编辑器是 Neovim；Python 缩进用四个空格，不用制表符。提交前用 black 格式化。",
            tags: "工具",
            questions: &[
                ("{p}用什么编辑器？", "overlap"),
                ("{p}的代码怎么缩进？", "overlap"),
                ("{p}喜欢哪个格式化工具？", "paraphrase"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-api版本",
            description: "{x}公开 API 在 URL 路径里做版本管理",
            body: "{x} API 选择路径版本（/v2/...）而不是请求头版本，因为缓存代理会忽略自定义请求头。\
                   旧版本支持十二个月。",
            tags: "api",
            questions: &[
                ("{x}的 api 怎么做版本管理？", "overlap"),
                ("{x}为什么不用请求头区分版本？", "overlap"),
                ("{x}的旧接口还能用多久？", "paraphrase"),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-缺陷跟踪",
            description: "{x}的缺陷记录在 Linear",
            body: "{x}的缺陷提交到 Linear，团队 Core，项目标签 {x}。安全问题改为提交到私有的安全跟踪系统。",
            tags: "问题",
            questions: &[
                ("{x}的 bug 在哪里提？", "paraphrase"),
                ("哪个系统跟踪{x}的缺陷？", "overlap"),
                ("{x}的安全漏洞报告到哪里？", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-结构化日志",
            description: "{x}使用结构化 JSON 日志",
            body: "纠正：{x}的日志必须是带请求 ID 字段的结构化 JSON；printf 风格的日志行会破坏日志管道。",
            tags: "日志",
            questions: &[
                ("{x}应该用什么日志格式？", "overlap"),
                ("{x}里能用 print 输出调试信息吗？", "paraphrase"),
                ("{x}的日志应该是什么样的？", "overlap"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-发布节奏",
            description: "{x}每隔一周的周二发布",
            body: "{x}的发布列车：每隔一个周二，周一晚上从 main 切出。错过的发布顺延到下一班。",
            tags: "发布",
            questions: &[
                ("{x}多久发布一次？", "overlap"),
                ("{x}下次什么时候切发布分支？", "overlap"),
                ("{x}的上线节奏是怎样的？", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-小合并请求",
            description: "{x}的合并请求不超过400行",
            body: "用户要求{x}的合并请求要小：改动少于400行，每个只做一件事。大的重构拆成一串。",
            tags: "评审",
            questions: &[
                ("{x}的合并请求最大可以多大？", "overlap"),
                ("{x}的大重构要拆开吗？", "overlap"),
                ("{x}每次改动的行数有限制吗？", "paraphrase"),
            ],
        },
    ],
};

//! Japanese memories, the same kinds of facts as the English set written the
//! way Japanese teams write them: unspaced, words in kanji and katakana,
//! grammar in hiragana, Latin tool names mixed in. Question kinds:
//! `overlap` shares words with the record, `forms` needs a verb whose
//! inflection differs (`書けば` for `書き`), `paraphrase` shares little but
//! its subject.

use super::generate::{Fact, Language};
use mdstore::RecordType::{Feedback, Project, Reference, User};

pub(super) const LANGUAGE: Language = Language {
    code: "ja",
    subjects: &[
        "請求",
        "検索",
        "決済",
        "在庫",
        "給与",
        "データ分析",
        "ゲートウェイ",
        "スケジューラ",
        "通知",
        "台帳",
        "商品カタログ",
        "オンボーディング",
        "レポート",
        "支払い",
        "認証",
    ],
    people: &[
        "佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "小林", "加藤", "吉田",
        "山田",
    ],
    fillers: &[
        "週次の定例で話題になった。",
        "不明な点はチームのチャンネルで聞いてください。",
        "最後に見直したのは春の計画のとき。",
        "背景はオンボーディング資料を参照。",
        "この決定は来期に見直してもよい。",
        "提案したときに反対した人はいなかった。",
    ],
    mentions: &[
        "週次定例メモ：{a}、{b}、{c}のデプロイ、テスト、ダッシュボードを話し合ったが、まだ決定はない。",
        "第3四半期の計画：{a}と{b}のチームはランブックとリリース手順を見直す。",
        "障害の振り返り：{a}の障害は誤ったデータベースのマイグレーションが原因で、{b}は影響を受けなかった。対応事項は Linear にある。",
        "{a}と{b}は同じ Postgres クラスタを共有している。変更する前にデータベースのメモを読むこと。",
        "オンボーディングのチェックリスト：{a}のダッシュボード、{b}のログ、当番ローテーションの権限を申請する。",
        "{p}さんと{q}さんは毎週木曜日に{a}のコードレビューを一緒にする。",
        "{p}さんが、{a}でも{b}の API バージョンとログの規約を使えるか質問した。",
        "休暇の予定：{p}さんは休みで、{q}さんが{a}のリリースと障害を担当する。",
    ],
    facts: &[
        Fact {
            kind: Project,
            name: "{x}-デプロイ凍結",
            description: "年末年始は{x}のデプロイを凍結する",
            body: "12月20日から1月3日まで{x}サービスのデプロイをすべて凍結することに決まりました。\
                   昨年の冬の障害のあとに決めたルールです。緊急の修正には当番リードの承認が必要です。",
            tags: "デプロイ リリース",
            questions: &[
                ("{x}のデプロイ凍結はどう決まったのですか？", "overlap"),
                ("年末に{x}の変更を出してもいいですか？", "paraphrase"),
                ("{x}はいつデプロイできませんか？", "overlap"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-テストはpytest",
            description: "{x}のテストは必ず pytest で書き、unittest は使わない",
            body: "ユーザーから二回訂正された：{x}の新しいテストは pytest の関数と fixture で書き、\
                   unittest.TestCase のクラスでは書かない。CI は pytest だけを実行する。",
            tags: "テスト python",
            questions: &[
                ("{x}のテストフレームワークは何ですか？", "overlap"),
                ("{x}で unittest のクラスを使ってもいいですか？", "overlap"),
                ("{x}の単体テストはどう書けばいいですか？", "forms"),
            ],
        },
        Fact {
            kind: User,
            name: "{x}-短いレビュー",
            description: "{x}のコードレビューのコメントは短いほうがよい",
            body: "{x}のプルリクエストへのレビューコメントは短く、まとめて書く。ユーザーは長いレビューの\
                   議論が嫌いで、揉めるならミーティングを開く。",
            tags: "レビュー",
            questions: &[
                (
                    "{x}のコードレビューはどんなスタイルがいいですか？",
                    "overlap",
                ),
                ("{x}で長い意見を書いてもいいですか？", "paraphrase"),
                (
                    "{x}のプルリクエストにコメントするときの注意点は？",
                    "overlap",
                ),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-レイテンシダッシュボード",
            description: "{x}のレイテンシの Grafana ダッシュボード",
            body: "{x}のレイテンシとエラー率は Grafana のダッシュボード svc-{x}（フォルダ Production）\
                   にある。アラートはプラットフォームチームを呼び出す。",
            tags: "監視",
            questions: &[
                ("{x}のレイテンシのグラフはどこで見られますか？", "overlap"),
                ("{x}のエラーを表示するダッシュボードはどれ？", "overlap"),
                ("{x}の監視メトリクスはどこ？", "paraphrase"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-postgres移行",
            description: "{x}を MySQL から Postgres に移行する",
            body: "アーキテクチャレビューで決定：{x}は第3四半期にデータベースを MySQL から PostgreSQL に\
                   移行する。JSONB とより良いレプリケーションが必要なため。二重書き込みは2週間続ける。",
            tags: "データベース",
            questions: &[
                ("{x}はなぜ postgres に移行するのですか？", "overlap"),
                ("{x}は今後どのデータベースを使いますか？", "overlap"),
                ("{x}でいつまで MySQL を使いますか？", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-強制プッシュ禁止",
            description: "{x}のメインブランチへの強制プッシュは禁止",
            body: "一度、強制プッシュで{x}の履歴が書き換えられ、ユーザーはとても怒った。必ず先に\
                   プルリクエストを作ってからマージする。共有ブランチはリベースしない。",
            tags: "git",
            questions: &[
                ("{x}に強制プッシュしてもいいですか？", "overlap"),
                (
                    "{x}のメインブランチに変更をどうやってマージしますか？",
                    "overlap",
                ),
                ("{x}の git の歴史を書き換えてもいいですか？", "forms"),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-当番ランブック",
            description: "{x}の障害対応の当番ランブック",
            body: "{x}の障害対応手順はウィキの Ops/Runbooks にあり、呼び出し、ロールバックの手順、\
                   ステータスページを含む。",
            tags: "当番",
            questions: &[
                ("{x}の当番ランブックはどこですか？", "overlap"),
                ("{x}で障害が起きたらどうロールバックしますか？", "overlap"),
                ("{x}が落ちたらどうすればいいですか？", "paraphrase"),
            ],
        },
        Fact {
            kind: User,
            name: "{p}-リスボン在宅",
            description: "{p}さんはリスボンからリモートで働き、非同期のやり取りを好む",
            body: "{p}さんはリスボンにいる（UTC+0、夏時間は UTC+1）。会議より文章での非同期の進捗報告を\
                   好む。現地時間17時以降の通話は入れない。",
            tags: "チーム",
            questions: &[
                ("{p}さんのタイムゾーンは？", "paraphrase"),
                ("{p}さんは会議が好きですか？", "overlap"),
                ("{p}さんに電話するのにいい時間はいつですか？", "paraphrase"),
            ],
        },
        Fact {
            kind: User,
            name: "{p}-エディタ",
            description: "{p}さんは Neovim を使い、インデントはスペース四つ",
            body: "{p}さんのエディタは Neovim。Python のインデントはタブではなくスペース四つ。\
                   コミット前に black で整形する。",
            tags: "ツール",
            questions: &[
                ("{p}さんはどのエディタを使っていますか？", "overlap"),
                ("{p}さんのコードのインデントは？", "overlap"),
                ("{p}さんが好きなフォーマッターは？", "paraphrase"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-apiバージョン",
            description: "{x}の公開 API は URL のパスでバージョン管理する",
            body: "{x} API はヘッダーではなくパスでのバージョン（/v2/...）を選んだ。キャッシュプロキシが\
                   カスタムヘッダーを無視するため。古いバージョンは12か月サポートする。",
            tags: "api",
            questions: &[
                ("{x}の api のバージョン管理はどうしていますか？", "overlap"),
                (
                    "{x}はなぜヘッダーでバージョンを分けないのですか？",
                    "overlap",
                ),
                (
                    "{x}の古いエンドポイントはいつまで使えますか？",
                    "paraphrase",
                ),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-バグ管理",
            description: "{x}のバグは Linear に記録する",
            body: "{x}のバグは Linear のチーム Core、プロジェクトラベル {x} に登録する。セキュリティの\
                   問題は非公開のセキュリティトラッカーに登録する。",
            tags: "課題",
            questions: &[
                ("{x}の bug はどこに報告しますか？", "paraphrase"),
                ("{x}の不具合を追跡するシステムは？", "paraphrase"),
                ("{x}のセキュリティの脆弱性はどこに登録しますか？", "overlap"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-構造化ログ",
            description: "{x}は構造化された JSON ログを使う",
            body: "訂正：{x}のログはリクエスト ID のフィールドを持つ構造化 JSON でなければならない。\
                   printf 形式のログ行はログのパイプラインを壊す。",
            tags: "ログ",
            questions: &[
                ("{x}のログの形式は何にすべきですか？", "overlap"),
                (
                    "{x}で print でデバッグ情報を出してもいいですか？",
                    "paraphrase",
                ),
                ("{x}のログは構造化しなければいけませんか？", "forms"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-リリース周期",
            description: "{x}は隔週の火曜日にリリースする",
            body: "{x}のリリーストレイン：隔週の火曜日、前日の月曜の夜に main からブランチを切る。\
                   間に合わなかったリリースは次の便に回す。",
            tags: "リリース",
            questions: &[
                ("{x}はどのくらいの頻度でリリースしますか？", "overlap"),
                ("{x}の次のリリースブランチはいつ切りますか？", "forms"),
                ("{x}の出荷のペースは？", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-小さいpr",
            description: "{x}のプルリクエストは400行以下",
            body: "ユーザーは{x}のプルリクエストを小さくするよう求めた：変更は400行未満、一つの\
                   プルリクエストで一つのことだけ。大きなリファクタリングは分割する。",
            tags: "レビュー",
            questions: &[
                (
                    "{x}のプルリクエストはどのくらいの大きさまでいいですか？",
                    "overlap",
                ),
                ("{x}の大きなリファクタリングは分けるべきですか？", "overlap"),
                ("{x}の一回の変更の行数に制限はありますか？", "paraphrase"),
            ],
        },
    ],
};

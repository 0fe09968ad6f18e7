//! Korean memories, the same kinds of facts as the English set written the
//! way Korean teams write them: particles and endings attached to the word
//! (`배포를`, `실행하나요`), English tool names mixed in (`pytest로`, `PR을`).
//! Question kinds: `overlap` shares words with the record (with whatever
//! particles), `forms` needs a word whose ending differs (`병합하나요` for
//! `병합한다`), `paraphrase` shares little but its subject. A subject is
//! followed by a word or a particle that does not change with it (`의`,
//! `에서`, `서비스는`), as a writer would choose for the name at hand.

use super::generate::{Fact, Language};
use mdstore::RecordType::{Feedback, Project, Reference, User};

pub(super) const LANGUAGE: Language = Language {
    code: "ko",
    subjects: &[
        "결제",
        "검색",
        "정산",
        "재고",
        "급여",
        "데이터분석",
        "게이트웨이",
        "스케줄러",
        "알림",
        "원장",
        "상품목록",
        "온보딩",
        "리포트",
        "웹훅",
        "인증",
    ],
    people: &[
        "김민준",
        "이서연",
        "박지훈",
        "최유진",
        "정하은",
        "강도윤",
        "조수아",
        "윤서준",
        "장예린",
        "임지호",
        "한소율",
        "오현우",
    ],
    fillers: &[
        "주간 회의에서 논의된 내용이다.",
        "불분명한 점은 팀 채널에서 물어보면 된다.",
        "지난 봄 계획 때 마지막으로 검토했다.",
        "배경은 온보딩 문서를 참고한다.",
        "이 결정은 다음 분기에 다시 논의할 수 있다.",
        "제안했을 때 반대한 사람은 없었다.",
    ],
    mentions: &[
        "주간 회의록: {a}, {b}, {c}의 배포, 테스트, 대시보드를 논의했고 아직 결정은 없다.",
        "3분기 계획: {a} 팀과 {b} 팀은 런북과 릴리스 절차를 검토한다.",
        "장애 회고: {a} 장애는 잘못된 데이터베이스 마이그레이션 때문이었고 {b} 서비스는 영향을 받지 않았다. 후속 작업은 Linear에 있다.",
        "{a}, {b} 서비스는 같은 Postgres 클러스터를 쓴다. 변경 전에 데이터베이스 문서를 본다.",
        "온보딩 체크리스트: {a} 대시보드, {b} 로그, 당직 로테이션 권한을 신청한다.",
        "{p}님과 {q}님은 매주 목요일에 {a} 코드 리뷰를 같이 한다.",
        "{p}님이 {a} 서비스도 {b}의 API 버전과 로그 규칙을 따를 수 있는지 물었다.",
        "연휴 일정: {p}님은 휴가이고 {q}님이 {a} 릴리스와 장애를 맡는다.",
    ],
    facts: &[
        Fact {
            kind: Project,
            name: "{x}-배포-동결",
            description: "연휴 기간에는 {x} 서비스 배포를 동결한다",
            body: "12월 20일부터 1월 3일까지 {x} 서비스의 모든 배포를 동결하기로 결정했다. \
                   작년 겨울 장애 이후에 정한 규칙이다. 긴급 핫픽스는 당직 리드의 승인이 필요하다.",
            tags: "배포 릴리스",
            questions: &[
                ("{x} 서비스 배포 동결은 어떻게 정해졌나요?", "overlap"),
                ("연휴에 {x} 변경 사항을 내보내도 되나요?", "paraphrase"),
                ("{x} 서비스는 언제 배포할 수 없나요?", "forms"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-테스트-pytest",
            description: "{x} 테스트는 항상 pytest로 작성하고 unittest는 쓰지 않는다",
            body: "사용자가 두 번 정정했다: {x}의 새 테스트는 pytest 함수와 fixture로 작성하고, \
                   unittest.TestCase 클래스로 작성하지 않는다. CI는 pytest만 실행한다.",
            tags: "테스트 python",
            questions: &[
                ("{x} 테스트 프레임워크는 뭘 쓰나요?", "overlap"),
                ("{x}에서 unittest 클래스를 써도 되나요?", "overlap"),
                ("{x}의 단위 테스트는 어떻게 작성해야 하나요?", "forms"),
            ],
        },
        Fact {
            kind: User,
            name: "{x}-짧은-리뷰",
            description: "{x} 코드 리뷰 코멘트는 짧게 남기는 것을 선호한다",
            body: "{x} PR 리뷰 코멘트는 짧게, 한 번에 모아서 남긴다. 사용자는 긴 리뷰 토론을 \
                   싫어하고, 논쟁이 있으면 차라리 회의를 잡는다.",
            tags: "리뷰",
            questions: &[
                ("{x} 코드 리뷰는 어떤 스타일을 원하나요?", "overlap"),
                ("{x} 리뷰 의견을 길게 써도 될까요?", "paraphrase"),
                ("{x} PR에 코멘트를 남길 때 주의할 점은?", "overlap"),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-지연-대시보드",
            description: "{x} 지연 시간 Grafana 대시보드",
            body: "{x}의 지연 시간과 에러율은 Grafana 대시보드 svc-{x}의 Production 폴더에 있다. \
                   알림은 플랫폼팀을 호출한다.",
            tags: "모니터링",
            questions: &[
                ("{x} 지연 시간 그래프는 어디서 보나요?", "overlap"),
                ("{x} 에러를 보여주는 대시보드는 뭔가요?", "overlap"),
                ("{x} 모니터링 지표는 어디에 있어요?", "paraphrase"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-postgres-이전",
            description: "{x} 데이터베이스를 MySQL에서 Postgres로 옮긴다",
            body: "아키텍처 리뷰에서 결정: {x} 서비스는 3분기에 데이터베이스를 MySQL에서 \
                   PostgreSQL로 이전한다. JSONB와 더 나은 복제가 필요하기 때문이다. 이중 쓰기는 \
                   2주 동안 유지한다.",
            tags: "데이터베이스",
            questions: &[
                ("{x} 서비스는 왜 postgres로 이전하나요?", "forms"),
                ("{x} 서비스는 앞으로 어떤 데이터베이스를 쓰나요?", "overlap"),
                ("{x}에서 MySQL은 언제까지 쓰나요?", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-강제-푸시-금지",
            description: "{x} main 브랜치에 강제 푸시 금지",
            body: "한 번은 강제 푸시로 {x}의 히스토리가 덮어써져서 사용자가 매우 화를 냈다. \
                   항상 PR을 먼저 열고 병합한다. 공유 브랜치를 rebase하지 않는다.",
            tags: "git",
            questions: &[
                ("{x}에 강제 푸시해도 되나요?", "forms"),
                ("{x} main 브랜치에 변경을 어떻게 병합하나요?", "forms"),
                ("{x}의 git 히스토리를 고쳐 써도 되나요?", "paraphrase"),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-당직-런북",
            description: "{x} 장애 대응 당직 런북",
            body: "{x}의 장애 대응 런북은 위키의 Ops/Runbooks 아래에 있다. 호출, 롤백 절차와 \
                   상태 페이지를 포함한다.",
            tags: "당직",
            questions: &[
                ("{x} 당직 런북은 어디에 있나요?", "overlap"),
                ("{x} 장애가 나면 어떻게 롤백하나요?", "forms"),
                ("{x} 서비스가 다운되면 뭘 해야 하나요?", "paraphrase"),
            ],
        },
        Fact {
            kind: User,
            name: "{p}-리스본-원격",
            description: "{p}님은 리스본에서 원격 근무하고 비동기 소통을 선호한다",
            body: "{p}님은 리스본에 있다 (UTC+0, 서머타임에는 UTC+1). 회의보다 글로 쓴 비동기 \
                   진행 상황 공유를 좋아한다. 현지 시간 17시 이후에는 통화를 잡지 않는다.",
            tags: "팀",
            questions: &[
                ("{p}님은 어느 시간대에 있나요?", "paraphrase"),
                ("{p}님은 회의를 좋아하나요?", "overlap"),
                ("{p}님과 통화하기 좋은 시간은 언제인가요?", "forms"),
            ],
        },
        Fact {
            kind: User,
            name: "{p}-에디터",
            description: "{p}님은 Neovim을 쓰고 스페이스 네 칸으로 들여쓴다",
            body: "{p}님의 에디터는 Neovim이다. Python 들여쓰기는 탭이 아니라 스페이스 네 칸이다. \
                   커밋 전에 black으로 포맷한다.",
            tags: "도구",
            questions: &[
                ("{p}님은 어떤 에디터를 쓰나요?", "overlap"),
                ("{p}님 코드는 들여쓰기를 어떻게 하나요?", "overlap"),
                ("{p}님이 좋아하는 포매터는 뭐예요?", "paraphrase"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-api-버전",
            description: "{x} 공개 API는 URL 경로로 버전을 관리한다",
            body: "{x} API는 헤더 버전 대신 경로 버전(/v2/...)을 선택했다. 캐시 프록시가 커스텀 \
                   헤더를 무시하기 때문이다. 이전 버전은 12개월 동안 지원한다.",
            tags: "api",
            questions: &[
                ("{x} api 버전 관리는 어떻게 하나요?", "overlap"),
                ("{x} API는 왜 헤더로 버전을 나누지 않나요?", "overlap"),
                (
                    "{x}의 예전 엔드포인트는 얼마나 오래 쓸 수 있나요?",
                    "paraphrase",
                ),
            ],
        },
        Fact {
            kind: Reference,
            name: "{x}-버그-트래커",
            description: "{x} 버그는 Linear에 기록한다",
            body: "{x} 버그는 Linear의 Core 팀에 등록하고, 프로젝트 라벨은 {x}이다. 보안 이슈는 \
                   비공개 보안 트래커에 등록한다.",
            tags: "이슈",
            questions: &[
                ("{x} bug는 어디에 올리나요?", "paraphrase"),
                ("{x} 버그를 추적하는 시스템은 뭔가요?", "overlap"),
                ("{x} 보안 취약점은 어디로 보고하나요?", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-구조화-로그",
            description: "{x} 서비스는 구조화된 JSON 로그를 쓴다",
            body: "정정: {x}의 로그는 요청 ID 필드가 있는 구조화된 JSON이어야 한다. printf 스타일 \
                   로그 라인은 로그 파이프라인을 깨뜨린다.",
            tags: "로그",
            questions: &[
                ("{x} 로그 형식은 어떻게 해야 하나요?", "overlap"),
                ("{x}에서 print로 디버그 정보를 찍어도 되나요?", "paraphrase"),
                ("{x} 로그를 구조화해야 하나요?", "forms"),
            ],
        },
        Fact {
            kind: Project,
            name: "{x}-릴리스-주기",
            description: "{x} 서비스는 격주 화요일에 릴리스한다",
            body: "{x} 릴리스 트레인: 격주 화요일, 월요일 저녁에 main에서 브랜치를 딴다. 놓친 \
                   릴리스는 다음 차례로 미룬다.",
            tags: "릴리스",
            questions: &[
                ("{x} 서비스는 얼마나 자주 릴리스하나요?", "forms"),
                ("{x} 다음 릴리스 브랜치는 언제 따나요?", "overlap"),
                ("{x}의 출시 주기는 어떻게 되나요?", "paraphrase"),
            ],
        },
        Fact {
            kind: Feedback,
            name: "{x}-작은-pr",
            description: "{x} PR은 400줄 이하로 작게",
            body: "사용자는 {x}의 PR을 작게 유지하라고 했다: 변경은 400줄 미만, PR 하나에 한 가지 \
                   일만. 큰 리팩터링은 여러 개로 나눈다.",
            tags: "리뷰",
            questions: &[
                ("{x} PR은 최대 몇 줄까지 되나요?", "overlap"),
                ("{x}의 큰 리팩터링은 나눠야 하나요?", "overlap"),
                (
                    "{x}에서 한 번에 바꾸는 줄 수에 제한이 있나요?",
                    "paraphrase",
                ),
            ],
        },
    ],
};

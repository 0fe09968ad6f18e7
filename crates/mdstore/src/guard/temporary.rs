//! The temporary-text guard: "for now", "this task", "暂时", "今回だけ" …

/// One temporary marker found, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemporaryFinding {
    pub phrase: String,
    pub line: usize,
}

/// Every temporary marker in `text`, matched as words or phrases.
pub fn find_temporary(text: &str) -> Vec<TemporaryFinding> {
    let _ = text;
    todo!()
}

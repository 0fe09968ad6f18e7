//! What both faces' `search` decide alike: the query as parsed and
//! checked, the stores it covers, and what to say of a query that cannot
//! be searched for.

use mdindex::query::{self, Query, QueryError};
use mdstore::{RecordType, Scope};

/// SPEC §5's query, refused only when it names an unknown filter value or
/// selects nothing (`*`, `(`) even with the `types` asked for.
pub fn parse(text: &str, types: &[RecordType]) -> Result<Query, QueryError> {
    query::parse(text).and_then(|query| query.ensure_selective(types).map(|()| query))
}

/// The stores a search covers: those `asked` for, else those the query's
/// `scope:` filters name, else both, nearest first.
pub fn wanted_scopes(asked: Option<&[Scope]>, query: &Query) -> Vec<Scope> {
    match asked {
        Some(asked) => asked.to_vec(),
        None if query.scopes.is_empty() => vec![Scope::Workspace, Scope::Global],
        None => query.scopes.clone(),
    }
}

/// What to do about a query that cannot be searched for. `shell` quotes
/// the suggested query for a shell (`'"type:x"'`), as the CLI takes it.
pub fn query_hint(error: &QueryError, shell: bool) -> String {
    match error {
        QueryError::NothingToSearch => {
            "give a word or a phrase to search for, or a filter such as `type:project`".to_string()
        }
        QueryError::UnknownFilterValue { filter, value, .. } => {
            let quoted = format!("\"{filter}:{value}\"");
            let quoted = if shell { format!("'{quoted}'") } else { quoted };
            format!("to search for the text itself, quote it: {quoted}")
        }
    }
}

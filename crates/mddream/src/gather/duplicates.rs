//! Duplicates are a group, not a pair: records with the same text (exact)
//! and records that say the same in other words (near) are joined into one
//! group, and the group gets one decision. Its most trusted records are
//! merged into one (every line of each kept), or, when their text may not
//! be rewritten, exact copies are retired into the kept one; a less trusted
//! exact copy is retired, superseded by the kept one. What a group holds
//! that is not acted on (a less trusted record in other words, records of
//! different types, one that may not be rewritten) is reported in
//! `left_alone` with the reason, naming the whole group: nothing found is
//! dropped silently.

use std::collections::{BTreeMap, HashMap};

use mdstore::Source;

use crate::gather::merge::{merge, newest, unmergeable};
use crate::gather::{Claims, id_list};
use crate::plan::{Finding, LeftAlone, Operation, Plan};
use crate::records::DreamRecord;

const SAME_TEXT: &str = "same text after normalising case, whitespace and Markdown";

/// A pair of near-duplicates and how alike their words are.
pub(crate) struct NearPair {
    pub(crate) a: usize,
    pub(crate) b: usize,
    pub(crate) score: f64,
}

/// One group of duplicates.
struct Group<'a> {
    records: &'a [DreamRecord],
    /// Members, in order.
    members: Vec<usize>,
    /// Which exact group (by number) a member is in, if any.
    exact_of: &'a HashMap<usize, usize>,
    /// The lowest similarity of a near pair inside the group, if it has one.
    lowest: Option<f64>,
}

/// Joins exact groups (taken by [`crate::gather::exact::find`]) and near
/// pairs into groups and proposes one decision for each.
pub(crate) fn propose(
    records: &[DreamRecord],
    exact: &[Vec<usize>],
    near: &[NearPair],
    claims: &mut Claims,
    plan: &mut Plan,
) {
    let mut joined = UnionFind::default();
    let mut exact_of = HashMap::new();
    for (n, group) in exact.iter().enumerate() {
        for &i in group {
            exact_of.insert(i, n);
            joined.union(group[0], i);
        }
    }
    for pair in near {
        joined.union(pair.a, pair.b);
    }
    let mut lowest: HashMap<usize, f64> = HashMap::new();
    for pair in near {
        let root = joined.root(pair.a);
        let low = lowest.entry(root).or_insert(pair.score);
        *low = low.min(pair.score);
    }
    for (root, members) in joined.sets() {
        let group = Group {
            records,
            members,
            exact_of: &exact_of,
            lowest: lowest.get(&root).copied(),
        };
        group.decide(claims, plan);
    }
}

impl Group<'_> {
    fn source(&self, i: usize) -> Source {
        self.records[i].record.source()
    }

    fn listed(&self, members: &[usize]) -> String {
        id_list(members.iter().map(|&i| &self.records[i]))
    }

    /// Whether `a` and `b` have the same text.
    fn same_text(&self, a: usize, b: usize) -> bool {
        matches!((self.exact_of.get(&a), self.exact_of.get(&b)), (Some(x), Some(y)) if x == y)
    }

    fn finding(&self) -> Finding {
        match self.lowest {
            None => Finding::ExactDuplicate,
            Some(_) => Finding::NearDuplicate,
        }
    }

    /// How the group's records are alike, for a reason.
    fn how(&self, members: &[usize]) -> String {
        match self.lowest {
            None => format!("{SAME_TEXT}: {}", self.listed(members)),
            Some(score) => format!(
                "the same fact in other words (word similarity at least {score:.2}): {}",
                self.listed(members)
            ),
        }
    }

    fn leave(&self, members: &[usize], reason: String, plan: &mut Plan) {
        plan.left_alone.push(LeftAlone {
            finding: self.finding(),
            reason,
            records: members
                .iter()
                .map(|&i| self.records[i].reference())
                .collect(),
        });
    }

    fn decide(&self, claims: &mut Claims, plan: &mut Plan) {
        let top = self
            .members
            .iter()
            .map(|&i| self.source(i))
            .max()
            .unwrap_or(Source::User);
        let trusted: Vec<usize> = self
            .members
            .iter()
            .copied()
            .filter(|&i| self.source(i) == top)
            .collect();
        let kind = |i: usize| self.records[i].record.meta.record_type;
        if trusted.iter().any(|&i| kind(i) != kind(trusted[0])) {
            let reason = format!(
                "{}, but of different types; keep the one whose type is right",
                self.how(&self.members)
            );
            return self.leave(&self.members, reason, plan);
        }
        let keep = newest(self.records, &trusted);
        if trusted.len() > 1 && !self.join_trusted(&trusted, keep, plan) {
            return;
        }
        let mut acted = trusted.clone();
        let mut less_trusted = Vec::new();
        for &i in self.members.iter().filter(|&&i| self.source(i) < top) {
            if trusted.iter().any(|&t| self.same_text(t, i)) {
                let reason = format!(
                    "{SAME_TEXT} as {}, which is more trusted ({top} over {})",
                    self.listed(&[keep]),
                    self.source(i)
                );
                retire(self.records, i, keep, reason, plan);
                acted.push(i);
            } else {
                less_trusted.push(i);
            }
        }
        if !less_trusted.is_empty() {
            let (says, is) = if less_trusted.len() == 1 {
                ("says", "is")
            } else {
                ("say", "are")
            };
            let sources: Vec<String> = less_trusted
                .iter()
                .map(|&i| self.source(i).to_string())
                .collect();
            let reason = format!(
                "{} {says} the same as {} in other words (word similarity at least {:.2}), but {is} less trusted ({} under {top}): merge by hand, keeping the trusted words",
                self.listed(&less_trusted),
                self.listed(&trusted),
                self.lowest.unwrap_or(1.0),
                sources.join(", ")
            );
            self.leave(&self.members, reason, plan);
        }
        // A lone trusted record with nothing retired into it was not acted on.
        if acted.len() > 1 {
            for i in acted {
                claims.take(i);
            }
        }
    }

    /// Merges the trusted records into one, or retires exact copies into
    /// the kept one when their text may not be rewritten; `false` (having
    /// said why) when neither may be done.
    fn join_trusted(&self, trusted: &[usize], keep: usize, plan: &mut Plan) -> bool {
        let unmergeable = trusted
            .iter()
            .find_map(|&i| unmergeable(&self.records[i]).map(|why| (i, why)));
        let Some((i, why)) = unmergeable else {
            let reason = match self.lowest {
                None => self.how(trusted),
                Some(_) => format!("{}; every line of each is kept", self.how(trusted)),
            };
            plan.operations
                .push(merge(self.records, trusted, self.finding(), reason));
            return true;
        };
        if trusted.iter().all(|&t| self.same_text(t, keep)) {
            // Same text, so retiring the copies loses nothing, and no
            // record is rewritten.
            let reason = format!("{SAME_TEXT}: {}", self.listed(trusted));
            for &t in trusted.iter().filter(|&&t| t != keep) {
                retire(self.records, t, keep, reason.clone(), plan);
            }
            return true;
        }
        let reason = format!(
            "{}; not merged, since {} {why}",
            self.how(&self.members),
            self.listed(&[i])
        );
        self.leave(&self.members, reason, plan);
        false
    }
}

/// Retires an exact copy, superseded by the kept record.
fn retire(records: &[DreamRecord], old: usize, by: usize, reason: String, plan: &mut Plan) {
    plan.operations.push(Operation::Retire {
        finding: Finding::ExactDuplicate,
        reason,
        reads: records[old].reference(),
        superseded_by: Some(records[by].reference()),
    });
}

/// Groups of records joined pair by pair.
#[derive(Default)]
struct UnionFind {
    parent: HashMap<usize, usize>,
}

impl UnionFind {
    fn root(&mut self, i: usize) -> usize {
        let mut r = i;
        while let Some(&p) = self.parent.get(&r).filter(|&&p| p != r) {
            r = p;
        }
        self.parent.insert(i, r);
        r
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        self.parent.insert(ra.max(rb), ra.min(rb));
        self.parent.entry(ra.min(rb)).or_insert(ra.min(rb));
    }

    /// Each group by its root (its smallest member), members in order.
    fn sets(&mut self) -> BTreeMap<usize, Vec<usize>> {
        let mut sets: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let members: Vec<usize> = self.parent.keys().copied().collect();
        for i in members {
            let root = self.root(i);
            sets.entry(root).or_default().push(i);
        }
        for members in sets.values_mut() {
            members.sort_unstable();
        }
        sets
    }
}

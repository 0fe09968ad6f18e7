/*!
A model command: how it runs ([`cmd`]: a timeout and a cap on its answer),
where it comes from ([`source`]: the user, never a repository), and a
runner's result wrapper taken off its answer ([`answer`]).
*/

pub mod answer;
pub mod cmd;
pub mod source;

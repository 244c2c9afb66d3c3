//! A scheduler's job, as an importer reads it: one allocation (or one of its
//! steps), with what it held and for how long.

use serde::Serialize;

/// One line (or object) of a scheduler's accounting.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Job {
    /// Where it was read: its line in the input (1-based), or its position in a JSON list.
    pub line: usize,
    /// The id as the scheduler prints it: `12`, `4_1` (an array task), `7+0` (a heterogeneous component).
    pub id: super::Word,
    /// The scheduler's own unique id (Slurm's JobIDRaw, Flux's job id).
    pub raw_id: super::Word,
    /// A step of an allocation (`12.batch`, `12.0`): part of its allocation, never counted apart.
    pub step: bool,
    /// The cluster the job ran on, when the input says.
    pub cluster: Option<super::Word>,
    /// The job's name.
    pub name: Option<super::Word>,
    /// The user who ran it.
    pub user: Option<super::Word>,
    /// The account (bank) it was charged to.
    pub account: Option<super::Word>,
    /// The partition (queue) it ran in.
    pub partition: Option<super::Word>,
    /// Slurm's workload characterization key.
    pub wckey: Option<super::Word>,
    /// The job's comment.
    pub comment: Option<super::Word>,
    /// Its state, upper case, without detail: `COMPLETED`, `CANCELLED`, `PENDING`...
    pub state: super::Word,
    /// When it started and ended, seconds since the epoch; `None` when it has not.
    pub start: Option<i64>,
    /// When it ended.
    pub end: Option<i64>,
    /// How long it ran, seconds.
    pub elapsed_s: f64,
    /// GPUs allocated.
    pub gpus: f64,
    /// Their type as the scheduler names it (Slurm's gres type, `h100`), where it names one for all of them.
    pub gpu_type: Option<super::Word>,
    /// Allocated core-hours, as the scheduler reports them.
    pub cpu_hours: f64,
    /// Energy the scheduler measured for the job's nodes, joules (Slurm's ConsumedEnergyRaw); `None` when none.
    pub energy_j: Option<f64>,
}

/// A line or field that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BadLine {
    /// The line (1-based) or position in a JSON list.
    pub line: usize,
    /// The field at fault; empty when the line as a whole is.
    pub field: String,
    /// What is wrong with it.
    pub why: String,
}

/// What a scheduler's accounting held.
#[derive(Debug, Default)]
pub struct Jobs {
    /// Every allocation read, in input order (`later`'s after these).
    pub jobs: Vec<Job>,
    /// The allocations read after `jobs`, in input order, where a long listing was read in two halves at once
    /// (`slurm::parse_parsable_halves`): the second half's are kept in a list of their own, not copied after the
    /// first's (a million jobs' half is some 170 MB, which a copy writes into pages the kernel must first zero).
    /// Empty otherwise.
    pub later: Vec<Job>,
    /// How many steps were read: each is checked as a job is, then counted and dropped, being part of its
    /// allocation's work (two thirds of a `sacct` listing's lines, never kept in memory).
    pub steps: u64,
    /// The lines that could not be read.
    pub bad: Vec<BadLine>,
}

impl Jobs {
    /// Keeps an allocation; counts a step.
    pub fn add(&mut self, job: Job) {
        if job.step {
            self.steps += 1;
        } else {
            self.jobs.push(job);
        }
    }
}

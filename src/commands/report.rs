//! `exa report`: totals of the stored records.

use crate::cli::GroupBy;
use crate::error::Error;
use crate::settings::Settings;
use crate::store;
use crate::store::report::{self, By, Filter, Per, PerUnit, Report};
use crate::time::{is_date_only, parse_utc};

/// The records a report covers: a model, and a time window in UTC.
pub fn filter(model: Option<&str>, since: Option<&str>, until: Option<&str>) -> Result<Filter, Error> {
    let when = |flag: &str, s: &str| parse_utc(s).map_err(|e| Error::Usage(format!("{flag}: {e}")));
    let since = since.map(|s| when("--since", s)).transpose()?;
    // A date alone means the whole of that day.
    let until = until.map(|s| when("--until", s).map(|t| if is_date_only(s) { t + 86_400 } else { t })).transpose()?;
    Ok(Filter { model: model.map(str::to_string), run: None, since, until, trend: false, per: None, key: None })
}

/// FOCUS rows of the runs the filter selects; a store never written gives none.
pub fn focus(settings: &Settings, filter: &Filter) -> Result<crate::sinks::focus::Focus, Error> {
    let runs = match store::open_read(&settings.db()?)? {
        Some(mut ledger) => ledger.runs(filter)?,
        None => Vec::new(),
    };
    let focus = crate::sinks::focus::rows(&runs, &settings.config.finops.focus)?;
    if focus.runs_without_cost > 0 {
        settings.warn(format!(
            "{} run(s) have no cost record and are not in the FOCUS rows (a row is a charge); `exa report` counts their carbon",
            focus.runs_without_cost
        ));
    }
    Ok(focus)
}

/// The unit `--per` names: token, request or run (either number), else a unit of the owner's naming.
pub fn per(unit: &str) -> Per {
    match unit {
        "token" | "tokens" => Per::Token,
        "request" | "requests" => Per::Request,
        "run" | "runs" => Per::Run,
        other => Per::Unit(other.to_string()),
    }
}

/// Each group's figures per unit of work, and a note on the runs left out for having no count of it.
fn per_unit(settings: &Settings, ledger: &mut dyn store::Ledger, by: By, report: &mut Report) -> Result<(), Error> {
    let Some(per) = report.filter.per.clone() else { return Ok(()) };
    for g in report.groups.iter_mut().chain(std::iter::once(&mut report.totals)) {
        g.per = Some(PerUnit::of(&per, g));
    }
    if per.needs_work() {
        let all = ledger.report(by, Filter { per: None, ..report.filter.clone() })?;
        let left_out = all.totals.runs.saturating_sub(report.totals.runs);
        if left_out > 0 {
            settings.warn(format!(
                "{left_out} of {} run(s) have no {} count and are not in this report (record them with {})",
                all.totals.runs,
                per.name(),
                match per {
                    Per::Token => "--tokens".to_string(),
                    Per::Request => "--requests".to_string(),
                    _ => format!("--unit {}=N", per.name()),
                }
            ));
        }
    }
    Ok(())
}

pub fn run(settings: &Settings, filter: Filter, by: GroupBy) -> Result<Report, Error> {
    let by = match by {
        GroupBy::Model => By::Model,
        GroupBy::Run => By::Run,
        GroupBy::Provider => By::Provider,
        GroupBy::Day => By::Day,
        GroupBy::User => By::User,
        GroupBy::Account => By::Account,
        GroupBy::Partition => By::Partition,
        GroupBy::Namespace => By::Namespace,
        GroupBy::Tag(key) => By::Tag(key),
    };
    let db = settings.db()?;
    match store::open_read(&db)? {
        Some(mut ledger) => {
            let wants_work = filter.per.as_ref().is_some_and(Per::needs_work);
            if wants_work && !ledger.keeps_work()? {
                // A store from before exa kept work counts (a reader never migrates it) has none to count.
                let mut r = report::empty(by, filter, &ledger.location().0);
                per_unit(settings, ledger.as_mut(), by, &mut r)?;
                return Ok(r);
            }
            let mut report = ledger.report(by, filter.clone())?;
            per_unit(settings, ledger.as_mut(), by, &mut report)?;
            if let (Some(m), true) = (&filter.model, report.groups.is_empty()) {
                // A model that differs only in case is almost always the one meant.
                let all = ledger.report(By::Model, Filter { model: None, ..filter })?;
                if let Some(g) = all.groups.iter().find(|g| g.key.eq_ignore_ascii_case(m)) {
                    settings.warn(format!("no records for model '{m}'; did you mean '{}'? (model names are case-sensitive)", g.key));
                }
            }
            Ok(report)
        }
        // Nothing was ever recorded: report that, without creating a database.
        None => {
            let mut r = report::empty(by, filter, &db.shown());
            if let Some(per) = r.filter.per.clone() {
                r.totals.per = Some(PerUnit::of(&per, &r.totals));
            }
            Ok(r)
        }
    }
}

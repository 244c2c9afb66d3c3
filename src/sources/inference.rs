//! The work counters of an inference server (vLLM, Hugging Face TGI or SGLang), read from the
//! text of one scrape of its `/metrics` (Prometheus text exposition, format 0.0.4), and the
//! increase of those counters between two scrapes, such as a run's start and end.
//!
//! `parse` finds which server wrote the text by the name of its output token counter, then sums
//! that server's cumulative counters over every series (or over the series of one model):
//! generated tokens, prompt tokens and finished requests. `increase` takes two such readings and
//! gives the work in between, counting from zero when the server restarted in between.
//!
//! This module never fetches anything and never opens a file: the caller scrapes the server and
//! hands the text in. It never panics on its input: a text over [`MAX_BYTES`] is refused, and a
//! line of one of the counters read here that does not parse, or whose value no counter can have
//! (NaN, negative, infinite), is an error naming the metric and the line. Lines of any other
//! metric are not read past their name, so a family this module does not use cannot make a
//! scrape fail.

use std::collections::{HashMap, HashSet};
use std::fmt;

/// The largest exposition `parse` reads, in bytes (16 MiB).
pub const MAX_BYTES: usize = 16 * 1024 * 1024;

/// The label that names a series' model (vLLM and SGLang).
const MODEL_LABEL: &str = "model_name";

/// The characters that separate the tokens of a line.
const BLANK: [char; 2] = [' ', '\t'];

/// A series' labels: name and unescaped value.
type Labels<'a> = Vec<(&'a str, String)>;

/// Which server's metric names were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Server {
    /// vLLM (`vllm:` metrics).
    Vllm,
    /// Hugging Face text-generation-inference (`tgi_` metrics).
    Tgi,
    /// SGLang (`sglang:` metrics).
    Sglang,
}

impl Server {
    /// Every server, in the order they are looked for.
    const ALL: [Self; 3] = [Self::Vllm, Self::Tgi, Self::Sglang];

    /// The metric names this server writes.
    fn names(self) -> &'static Names {
        match self {
            Self::Vllm => &VLLM,
            Self::Tgi => &TGI,
            Self::Sglang => &SGLANG,
        }
    }
}

impl fmt::Display for Server {
    /// The server's own spelling of its name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Vllm => "vLLM",
            Self::Tgi => "TGI",
            Self::Sglang => "SGLang",
        })
    }
}

/// Cumulative counters of one scrape, summed over every series (all models/engines/label sets) unless a model filter is given.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Counters {
    /// The server that wrote the exposition.
    pub server: Server,
    /// output (generated) tokens
    pub tokens: f64,
    /// prompt tokens, when the server exposes them
    pub prompt_tokens: Option<f64>,
    /// finished requests
    pub requests: Option<f64>,
}

/// The work between two scrapes; a counter that went down was reset (the server restarted): then the increase is taken as the end value (counted from the reset), and `reset` is true so the caller can say so.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Increase {
    /// The server both scrapes came from.
    pub server: Server,
    /// Output (generated) tokens.
    pub tokens: f64,
    /// Prompt tokens, when the server exposes them.
    pub prompt_tokens: Option<f64>,
    /// Finished requests, when the server exposes them.
    pub requests: Option<f64>,
    /// Whether a counter went down between the scrapes, so the server restarted in between.
    pub reset: bool,
}

/// The metric names of one server.
struct Names {
    /// The family that a `# TYPE` or `# HELP` line names for the output token counter.
    family: &'static str,
    /// The output token counter.
    tokens: &'static str,
    /// The prompt token counters, by preference: the first one that has a series is read.
    prompt: &'static [&'static str],
    /// The finished request counters, by preference.
    requests: &'static [&'static str],
    /// How every metric name of this server begins.
    prefix: &'static str,
    /// Whether the series carry the `model_name` label.
    model_label: bool,
}

/// vLLM (V1 engine, `vllm/v1/metrics/loggers.py`), as rendered by `prometheus_client`.
static VLLM: Names = Names {
    family: "vllm:generation_tokens_total",
    tokens: "vllm:generation_tokens_total",
    prompt: &["vllm:prompt_tokens_total"],
    requests: &["vllm:request_success_total"],
    prefix: "vllm:",
    model_label: true,
};

/// TGI's router: counters have no `_total` suffix, and the output tokens are a histogram's sum.
static TGI: Names = Names {
    family: "tgi_request_generated_tokens",
    tokens: "tgi_request_generated_tokens_sum",
    prompt: &["tgi_request_input_length_sum"],
    requests: &["tgi_request_success", "tgi_request_count"],
    prefix: "tgi_",
    model_label: false,
};

/// SGLang (`sglang/srt/observability/metrics_collector.py`).
static SGLANG: Names = Names {
    family: "sglang:generation_tokens_total",
    tokens: "sglang:generation_tokens_total",
    prompt: &["sglang:prompt_tokens_total"],
    requests: &["sglang:num_requests_total"],
    prefix: "sglang:",
    model_label: true,
};

/// Reads an exposition (text format 0.0.4). `model`: only series whose `model_name` label equals it (vLLM, SGLang; TGI has no model label — a model filter on TGI is an error saying so).
///
/// A server whose `# TYPE` line declares its token counter but which has no series of it yet
/// reads as 0 tokens. A model filter that no series of the token counter matches is an error that
/// lists the models found. A prompt or request counter with no series (or none of the model) is
/// `None`.
pub fn parse(text: &str, model: Option<&str>) -> Result<Counters, String> {
    if text.len() > MAX_BYTES {
        return Err(format!("the exposition is {} bytes, over the {MAX_BYTES} read", text.len()));
    }
    let scrape = Scrape::read(text)?;
    let server = scrape.server()?;
    let names = server.names();
    if let (Some(model), false) = (model, names.model_label) {
        return Err(format!("a model filter ({model:?}) was given, but {server} has no model label: its counters are of the whole server"));
    }
    let tokens = match scrape.sum(names.tokens, model) {
        Some(tokens) => tokens,
        None => match (model, scrape.series.get(names.tokens)) {
            (Some(model), Some(series)) => return Err(no_model(names.tokens, model, series)),
            _ => 0.0,
        },
    };
    Ok(Counters { server, tokens, prompt_tokens: scrape.first_sum(names.prompt, model), requests: scrape.first_sum(names.requests, model) })
}

/// The work between two scrapes of one server; an error if the servers differ.
///
/// A counter that went down means the server restarted, and a restart sets every counter back to
/// zero, so when any counter went down the increase of each counter is its end value and `reset`
/// is true. The work done after the start scrape and before the restart is then lost: two scrapes
/// cannot see it. A counter missing from one scrape and present in the other counts as zero where
/// it is missing (a server creates some series only when they are first counted).
pub fn increase(start: &Counters, end: &Counters) -> Result<Increase, String> {
    if start.server != end.server {
        return Err(format!("the scrapes are of different servers: {} at the start, {} at the end", start.server, end.server));
    }
    for (when, counters) in [("start", start), ("end", end)] {
        if [Some(counters.tokens), counters.prompt_tokens, counters.requests].into_iter().flatten().any(|v| !(v >= 0.0 && v.is_finite())) {
            return Err(format!("the {when} scrape has a counter that is negative or not a finite number"));
        }
    }
    let pairs = [(Some(start.tokens), Some(end.tokens)), (start.prompt_tokens, end.prompt_tokens), (start.requests, end.requests)];
    let reset = pairs.iter().any(|&(from, to)| from.unwrap_or(0.0) > to.unwrap_or(0.0));
    let [tokens, prompt_tokens, requests] = pairs.map(|(from, to)| {
        from.or(to)?;
        let to = to.unwrap_or(0.0);
        Some(if reset { to } else { to - from.unwrap_or(0.0) })
    });
    Ok(Increase { server: end.server, tokens: tokens.unwrap_or(0.0), prompt_tokens, requests, reset })
}

/// One series of a counter this module reads.
struct Series<'a> {
    /// Its labels, sorted by name, values unescaped.
    labels: Labels<'a>,
    /// Its value: finite and not negative.
    value: f64,
    /// Its line in the text, counted from 1.
    line: usize,
}

impl Series<'_> {
    /// The value of its `model_name` label.
    fn model(&self) -> Option<&str> {
        self.labels.iter().find(|(name, _)| *name == MODEL_LABEL).map(|(_, value)| value.as_str())
    }
}

/// What is kept of an exposition: the series of the counters read here, by metric name, and the
/// names its comments declare.
#[derive(Default)]
struct Scrape<'a> {
    /// The series of each counter that some server's `Names` lists.
    series: HashMap<&'a str, Vec<Series<'a>>>,
    /// The names of `# TYPE` and `# HELP` lines.
    declared: HashSet<&'a str>,
    /// The servers that some metric name, in a sample or a comment, begins with the prefix of.
    seen: Vec<Server>,
}

impl<'a> Scrape<'a> {
    /// Reads every line of `text`: sample lines of the counters in full, others only by name.
    fn read(text: &'a str) -> Result<Self, String> {
        let mut scrape = Scrape::default();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim_matches(BLANK);
            if line.is_empty() {
                continue;
            }
            if let Some(comment) = line.strip_prefix('#') {
                let mut words = comment.split(BLANK).filter(|word| !word.is_empty());
                if let (Some("TYPE" | "HELP"), Some(name)) = (words.next(), words.next()) {
                    scrape.note(name);
                    scrape.declared.insert(name);
                }
                continue;
            }
            let end = line.find(|c: char| c == '{' || BLANK.contains(&c)).unwrap_or(line.len());
            let (name, rest) = line.split_at(end);
            scrape.note(name);
            if is_counter(name) {
                let (labels, value) = read_sample(rest).map_err(|e| format!("line {}: {name}: {e}", index + 1))?;
                scrape.series.entry(name).or_default().push(Series { labels, value, line: index + 1 });
            }
        }
        for (name, series) in &mut scrape.series {
            series.sort_by(|a, b| a.labels.cmp(&b.labels));
            if let Some(pair) = series.windows(2).find(|pair| pair[0].labels == pair[1].labels) {
                return Err(format!("line {}: {name}: the same series as line {}", pair[1].line, pair[0].line));
            }
        }
        Ok(scrape)
    }

    /// Notes the server whose prefix `name` begins with.
    fn note(&mut self, name: &str) {
        for server in Server::ALL {
            if name.starts_with(server.names().prefix) && !self.seen.contains(&server) {
                self.seen.push(server);
            }
        }
    }

    /// The one server whose token counter has a series or a declaration here.
    fn server(&self) -> Result<Server, String> {
        let found: Vec<Server> = Server::ALL
            .into_iter()
            .filter(|server| {
                let names = server.names();
                self.series.contains_key(names.tokens) || self.declared.contains(names.family)
            })
            .collect();
        match found[..] {
            [server] => Ok(server),
            [] => Err(self.unknown()),
            _ => Err(format!(
                "the exposition has the token counters of more than one server ({}); one scrape must be of one server",
                found.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// The error for an exposition with no server's token counter: what was looked for, and
    /// which servers' other metrics are there.
    fn unknown(&self) -> String {
        let looked: Vec<String> = Server::ALL.iter().map(|server| format!("{} ({server})", server.names().tokens)).collect();
        let mut message = format!("not an inference server exposition this reads: none of {} is in it", looked.join(", "));
        for server in &self.seen {
            let names = server.names();
            message.push_str(&format!(
                "; it has other {server} metrics ({}…): a {server} server that has served no request yet may not expose {} until its first",
                names.prefix, names.tokens
            ));
        }
        message
    }

    /// The sum of the series of `name` (those of `model` when one is given); `None` when none.
    fn sum(&self, name: &str, model: Option<&str>) -> Option<f64> {
        let mut matched = self.series.get(name)?.iter().filter(|series| model.is_none_or(|model| series.model() == Some(model))).peekable();
        matched.peek()?;
        Some(matched.map(|series| series.value).sum())
    }

    /// The sum of the first of `names` that has a series.
    fn first_sum(&self, names: &[&str], model: Option<&str>) -> Option<f64> {
        names.iter().find(|name| self.series.contains_key(*name)).and_then(|name| self.sum(name, model))
    }
}

/// Whether `name` is a counter that some server's `Names` lists.
fn is_counter(name: &str) -> bool {
    Server::ALL.iter().any(|server| {
        let names = server.names();
        names.tokens == name || names.prompt.contains(&name) || names.requests.contains(&name)
    })
}

/// The error for a model filter that no series of the token counter `name` matches.
fn no_model(name: &str, model: &str, series: &[Series<'_>]) -> String {
    let mut models: Vec<&str> = series.iter().filter_map(Series::model).collect();
    models.sort_unstable();
    models.dedup();
    let found = if models.is_empty() { "none has a model_name label".to_owned() } else { format!("its models: {}", models.join(", ")) };
    format!("no series of {name} has model_name {model:?} ({found})")
}

/// Reads what follows a sample's name: `{labels}` (optional), the value and an optional
/// timestamp in milliseconds.
fn read_sample(rest: &str) -> Result<(Labels<'_>, f64), String> {
    let rest = rest.trim_start_matches(BLANK);
    let (mut labels, rest) = match rest.strip_prefix('{') {
        Some(inner) => read_labels(inner)?,
        None => (Vec::new(), rest),
    };
    labels.sort_by_key(|(name, _)| *name);
    if let Some(pair) = labels.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        return Err(format!("the label {} appears twice", pair[0].0));
    }
    let mut words = rest.split(BLANK).filter(|word| !word.is_empty());
    let word = words.next().ok_or("no value")?;
    let value: f64 = word.parse().map_err(|_| format!("the value {} is not a number", shown(word)))?;
    if let Some(stamp) = words.next() {
        stamp.parse::<i64>().map_err(|_| format!("the timestamp {} is not a whole number of milliseconds", shown(stamp)))?;
    }
    if let Some(extra) = words.next() {
        return Err(format!("{} after the timestamp", shown(extra)));
    }
    if value.is_nan() {
        Err("the value is NaN, which no counter is".to_owned())
    } else if value < 0.0 {
        Err(format!("the value {value} is negative, which no counter is"))
    } else if value.is_infinite() {
        Err("the value is infinite, which no counter is".to_owned())
    } else {
        Ok((labels, value))
    }
}

/// Reads `name="value",…}` (the text after `{`): the labels, and the text after `}`.
fn read_labels(inner: &str) -> Result<(Labels<'_>, &str), String> {
    let mut labels = Vec::new();
    let mut rest = inner.trim_start_matches(BLANK);
    loop {
        if let Some(after) = rest.strip_prefix('}') {
            return Ok((labels, after));
        }
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let (name, after) = rest.split_at(end);
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!("expected a label name at {}", shown(rest)));
        }
        let after = after.trim_start_matches(BLANK).strip_prefix('=').ok_or_else(|| format!("no '=' after the label {name}"))?;
        let after = after.trim_start_matches(BLANK).strip_prefix('"').ok_or_else(|| format!("the label {name} has no quoted value"))?;
        let (value, after) = read_label_value(after).map_err(|e| format!("the label {name}: {e}"))?;
        labels.push((name, value));
        rest = after.trim_start_matches(BLANK);
        if let Some(after) = rest.strip_prefix(',') {
            rest = after.trim_start_matches(BLANK);
        } else if !rest.starts_with('}') {
            return Err(format!("expected ',' or '}}' after the label {name}"));
        }
    }
}

/// Reads a label value up to its closing quote (the text after the opening one), undoing the
/// escapes `\\`, `\"` and `\n`: the value, and the text after the quote.
fn read_label_value(text: &str) -> Result<(String, &str), String> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((value, text.get(at + 1..).unwrap_or_default())),
            '\\' => match chars.next() {
                Some((_, '\\')) => value.push('\\'),
                Some((_, '"')) => value.push('"'),
                Some((_, 'n')) => value.push('\n'),
                Some((_, other)) => return Err(format!("the escape \\{other} is not one of \\\\, \\\" and \\n")),
                None => break,
            },
            c => value.push(c),
        }
    }
    Err("the value has no closing quote".to_owned())
}

/// The start of `text`, short enough for an error message.
fn shown(text: &str) -> String {
    const MOST: usize = 40;
    let mut chars = text.chars();
    let start: String = chars.by_ref().take(MOST).collect();
    if chars.next().is_some() {
        format!("{start:?}…")
    } else {
        format!("{start:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VLLM_TEXT: &str = include_str!("../../tests/fixtures/inference/vllm-metrics.txt");
    const TGI_TEXT: &str = include_str!("../../tests/fixtures/inference/tgi-metrics.txt");
    const SGLANG_TEXT: &str = include_str!("../../tests/fixtures/inference/sglang-metrics.txt");
    const LLAMA: &str = "meta-llama/Llama-3.1-8B-Instruct";

    fn counters(server: Server, tokens: f64, prompt_tokens: Option<f64>, requests: Option<f64>) -> Counters {
        Counters { server, tokens, prompt_tokens, requests }
    }

    /// The error of `parse(text, None)`, which must fail.
    fn error(text: &str) -> String {
        match parse(text, None) {
            Ok(counters) => panic!("{text:?} read as {counters:?}"),
            Err(e) => e,
        }
    }

    // The expected figures below were summed from the fixture files by a separate script
    // (Python: split each sample line into name, labels and value, keep the lines whose name is
    // exactly the metric, add their values), not by this module.

    #[test]
    fn vllm_fixture() {
        // vllm:generation_tokens_total: one series, 426922 (equal to vllm:request_generation_tokens_sum);
        // vllm:prompt_tokens_total: one series, 1376791 (written 1.376791e+06; equal to vllm:request_prompt_tokens_sum);
        // vllm:request_success_total: 1629 stop + 183 length + 22 abort + 0 error + 0 repetition = 1834.
        let expected = counters(Server::Vllm, 426_922.0, Some(1_376_791.0), Some(1834.0));
        assert_eq!(parse(VLLM_TEXT, None), Ok(expected.clone()));
        assert_eq!(parse(VLLM_TEXT, Some(LLAMA)), Ok(expected));
    }

    #[test]
    fn tgi_fixture() {
        // tgi_request_generated_tokens_sum 427826; tgi_request_input_length_sum 1433701;
        // tgi_request_success 1834 (tgi_request_count is 1837: it counts the 3 validation failures too).
        assert_eq!(parse(TGI_TEXT, None), Ok(counters(Server::Tgi, 427_826.0, Some(1_433_701.0), Some(1834.0))));
        let e = parse(TGI_TEXT, Some(LLAMA)).unwrap_err();
        assert!(e.contains("TGI has no model label"), "{e}");
    }

    #[test]
    fn sglang_fixture() {
        // Two series each, is_streaming="false" + "true": generation 88702 + 225069 = 313771,
        // prompt 326334 + 786729 = 1113063, requests 411 + 996 = 1407 (the histograms' _sum and _count agree).
        let expected = counters(Server::Sglang, 313_771.0, Some(1_113_063.0), Some(1407.0));
        assert_eq!(parse(SGLANG_TEXT, None), Ok(expected.clone()));
        assert_eq!(parse(SGLANG_TEXT, Some(LLAMA)), Ok(expected));
    }

    #[test]
    fn a_model_no_series_has_is_an_error_listing_the_models() {
        for text in [VLLM_TEXT, SGLANG_TEXT] {
            let e = parse(text, Some("Qwen/Qwen3-8B")).unwrap_err();
            assert!(e.contains("\"Qwen/Qwen3-8B\"") && e.contains(LLAMA), "{e}");
        }
    }

    const TWO_MODELS: &str = "# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine=\"0\",model_name=\"a\"} 10
vllm:generation_tokens_total{engine=\"1\",model_name=\"a\"} 5 1700000000000
vllm:generation_tokens_total{model_name=\"b\",engine=\"0\"} 100.5
vllm:prompt_tokens_total{model_name=\"b\"} 7
vllm:request_success_total{finished_reason=\"stop\",model_name=\"a\"} 2
vllm:request_success_total{finished_reason=\"length\",model_name=\"a\"} 1
";

    #[test]
    fn series_are_summed_over_every_label_set_or_one_model() {
        assert_eq!(parse(TWO_MODELS, None), Ok(counters(Server::Vllm, 115.5, Some(7.0), Some(3.0))));
        assert_eq!(parse(TWO_MODELS, Some("a")), Ok(counters(Server::Vllm, 15.0, None, Some(3.0))));
        assert_eq!(parse(TWO_MODELS, Some("b")), Ok(counters(Server::Vllm, 100.5, Some(7.0), None)));
    }

    #[test]
    fn escaped_label_values_are_read_and_matched_unescaped() {
        let text = "sglang:generation_tokens_total { model_name = \"a\\\"b\\\\c,}\\n\" , x=\"\" , } 4\n\
                    sglang:generation_tokens_total{model_name=\"a\\\"b\\\\c,}\\n\",x=\"y\"} 6\n\
                    sglang:generation_tokens_total{model_name=\"other\"}\t1e3\t-5\n";
        assert_eq!(parse(text, Some("a\"b\\c,}\n")), Ok(counters(Server::Sglang, 10.0, None, None)));
        assert_eq!(parse(text, None), Ok(counters(Server::Sglang, 1010.0, None, None)));
    }

    #[test]
    fn tgi_counts_requests_by_tgi_request_count_without_tgi_request_success() {
        let text = "tgi_request_count 9\ntgi_request_generated_tokens_sum 120\ntgi_request_generated_tokens_count 8\n";
        assert_eq!(parse(text, None), Ok(counters(Server::Tgi, 120.0, None, Some(9.0))));
    }

    #[test]
    fn a_declared_token_counter_with_no_series_is_zero_tokens() {
        let text = "# HELP sglang:generation_tokens_total Number of generation tokens processed.\n\
                    # TYPE sglang:generation_tokens_total counter\n";
        assert_eq!(parse(text, None), Ok(counters(Server::Sglang, 0.0, None, None)));
        assert_eq!(parse(text, Some("m")), Ok(counters(Server::Sglang, 0.0, None, None)));
    }

    #[test]
    fn an_unknown_exposition_names_what_was_looked_for() {
        for text in ["", "\n\n# just a comment\n", "up 1\nprocess_cpu_seconds_total{a=\"b\"} 3\n", "vllm:generation_tokens 5\n"] {
            let e = error(text);
            for name in ["vllm:generation_tokens_total", "tgi_request_generated_tokens_sum", "sglang:generation_tokens_total"] {
                assert!(e.contains(name), "{e}");
            }
        }
        let e = error("# TYPE tgi_queue_size gauge\ntgi_queue_size 0\n");
        assert!(e.contains("other TGI metrics"), "{e}");
    }

    #[test]
    fn two_servers_in_one_scrape_is_an_error() {
        let e = error("vllm:generation_tokens_total 1\nsglang:generation_tokens_total 2\n");
        assert!(e.contains("vLLM, SGLang"), "{e}");
    }

    #[test]
    fn values_no_counter_has_are_errors_naming_the_metric() {
        for (value, says) in
            [("NaN", "NaN"), ("nan", "NaN"), ("-1", "negative"), ("-Inf", "negative"), ("+Inf", "infinite"), ("Inf", "infinite")]
        {
            let e = error(&format!("# TYPE vllm:generation_tokens_total counter\nvllm:prompt_tokens_total{{model_name=\"m\"}} {value}\n"));
            assert!(e.starts_with("line 2: vllm:prompt_tokens_total: ") && e.contains(says), "{value}: {e}");
        }
    }

    #[test]
    fn malformed_lines_of_a_counter_are_errors() {
        let name = "vllm:generation_tokens_total";
        for (line, says) in [
            ("", "no value"),
            ("{}", "no value"),
            ("{model_name=\"m\"}", "no value"),
            (" twelve", "not a number"),
            (" 1 2.5", "timestamp"),
            (" 1 2 3", "after the timestamp"),
            ("{model_name=\"m} 1", "closing quote"),
            ("{model_name=m} 1", "quoted value"),
            ("{model_name} 1", "'='"),
            ("{=\"m\"} 1", "label name"),
            ("{1a=\"m\"} 1", "label name"),
            ("{,} 1", "label name"),
            ("{a=\"b\" c=\"d\"} 1", "',' or '}'"),
            ("{a=\"\\t\"} 1", "escape"),
            ("{a=\"b\\", "closing quote"),
            ("{a=\"x\",a=\"y\"} 1", "appears twice"),
        ] {
            let e = error(&format!("# a comment\n{name}{line}\n"));
            assert!(e.starts_with(&format!("line 2: {name}: ")) && e.contains(says), "{line:?}: {e}");
        }
        let e = error("vllm:generation_tokens_total{a=\"1\",b=\"2\"} 1\nvllm:generation_tokens_total{b=\"2\",a=\"1\"} 1\n");
        assert!(e.contains("line 2") && e.contains("the same series as line 1"), "{e}");
    }

    #[test]
    fn lines_of_other_metrics_are_not_read() {
        let text = "broken{{{ NaN x y z\nvllm:num_requests_running{a=\"\\q\"} -3\nvllm:generation_tokens_total 2\n";
        assert_eq!(parse(text, None), Ok(counters(Server::Vllm, 2.0, None, None)));
    }

    #[test]
    fn a_text_over_the_cap_is_refused() {
        let mut text = "vllm:generation_tokens_total 1\n".to_owned();
        text.push_str(&"#".repeat(MAX_BYTES));
        assert!(error(&text).contains("over the"));
        text.truncate(MAX_BYTES);
        assert_eq!(parse(&text, None), Ok(counters(Server::Vllm, 1.0, None, None)));
    }

    #[test]
    fn a_huge_line_is_read_and_shown_short() {
        let label = "é".repeat(1 << 20);
        let text = format!("sglang:generation_tokens_total{{model_name=\"{label}\"}} 3\n");
        assert_eq!(parse(&text, Some(&label)), Ok(counters(Server::Sglang, 3.0, None, None)));
        let e = error(&format!("sglang:generation_tokens_total{{model_name=\"m\"}} {label}\n"));
        assert!(e.len() < 200, "{}", e.len());
    }

    #[test]
    fn no_cut_of_a_fixture_panics() {
        for text in [VLLM_TEXT, TGI_TEXT, SGLANG_TEXT] {
            for (at, _) in text.char_indices().step_by(211) {
                let _ = parse(&text[..at], None);
                let _ = parse(&text[at..], Some(LLAMA));
            }
        }
        let line = "vllm:generation_tokens_total{a=\"\\\"é\\\\\",b=\"\\n\"} 1.5e3 17\n";
        for (at, _) in line.char_indices() {
            let _ = parse(&line[..at], None);
            let _ = parse(&line[at..], None);
        }
    }

    #[test]
    fn increase_is_end_minus_start() {
        let start = counters(Server::Vllm, 100.0, Some(1000.0), Some(4.0));
        let end = counters(Server::Vllm, 150.0, Some(1600.0), Some(6.0));
        let expected = Increase { server: Server::Vllm, tokens: 50.0, prompt_tokens: Some(600.0), requests: Some(2.0), reset: false };
        assert_eq!(increase(&start, &end), Ok(expected));
        let same = Increase { server: Server::Vllm, tokens: 0.0, prompt_tokens: Some(0.0), requests: Some(0.0), reset: false };
        assert_eq!(increase(&end, &end), Ok(same));
    }

    #[test]
    fn a_counter_that_went_down_is_a_reset_counted_from_zero() {
        let start = counters(Server::Sglang, 500.0, Some(2000.0), Some(10.0));
        // The token counter went down: the server restarted, so every counter counts from zero.
        let end = counters(Server::Sglang, 30.0, Some(2500.0), Some(1.0));
        let expected = Increase { server: Server::Sglang, tokens: 30.0, prompt_tokens: Some(2500.0), requests: Some(1.0), reset: true };
        assert_eq!(increase(&start, &end), Ok(expected));
        // A counter present at the start and gone at the end went down to zero.
        let gone = counters(Server::Sglang, 600.0, None, Some(12.0));
        let expected = Increase { server: Server::Sglang, tokens: 600.0, prompt_tokens: Some(0.0), requests: Some(12.0), reset: true };
        assert_eq!(increase(&start, &gone), Ok(expected));
    }

    #[test]
    fn a_counter_that_appeared_counts_from_zero() {
        let start = counters(Server::Sglang, 0.0, None, None);
        let end = counters(Server::Sglang, 40.0, Some(90.0), None);
        let expected = Increase { server: Server::Sglang, tokens: 40.0, prompt_tokens: Some(90.0), requests: None, reset: false };
        assert_eq!(increase(&start, &end), Ok(expected));
    }

    #[test]
    fn increase_of_fixture_readings() {
        let start = parse(VLLM_TEXT, None).unwrap();
        let text = VLLM_TEXT.replace("} 426922.0", "} 427000.0");
        let end = parse(&text, Some(LLAMA)).unwrap();
        assert_eq!(increase(&start, &end).map(|work| (work.tokens, work.prompt_tokens, work.reset)), Ok((78.0, Some(0.0), false)));
    }

    #[test]
    fn increase_refuses_other_servers_and_bad_counters() {
        let vllm = counters(Server::Vllm, 1.0, None, None);
        let e = increase(&vllm, &counters(Server::Tgi, 2.0, None, None)).unwrap_err();
        assert!(e.contains("vLLM at the start, TGI at the end"), "{e}");
        for bad in [f64::NAN, -1.0, f64::INFINITY] {
            assert!(increase(&vllm, &counters(Server::Vllm, 1.0, Some(bad), None)).unwrap_err().contains("end scrape"));
            assert!(increase(&counters(Server::Vllm, bad, None, None), &vllm).unwrap_err().contains("start scrape"));
        }
    }

    #[test]
    fn the_server_serializes_lowercase() {
        assert_eq!(serde_json::to_string(&Server::Sglang).unwrap(), "\"sglang\"");
        assert_eq!(Server::Tgi.to_string(), "TGI");
    }
}

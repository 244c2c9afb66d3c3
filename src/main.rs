// mimalloc for every allocation: an import makes tens of millions of small ones (a job's fields, a record's
// columns), and glibc's allocator spent a fifth of an import's time on them (benches/import.sh).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    exa::run()
}

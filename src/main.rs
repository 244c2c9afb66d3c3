fn main() -> std::process::ExitCode {
    exa::run()
}

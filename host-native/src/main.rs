//! The `baton` binary: hands the command line to [`baton::cli`].

fn main() {
    std::process::exit(baton::cli::main());
}

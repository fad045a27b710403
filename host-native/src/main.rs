//! The `baton` binary: hands the command line to [`baton::faces::cli`].

fn main() {
    std::process::exit(baton::faces::cli::main());
}

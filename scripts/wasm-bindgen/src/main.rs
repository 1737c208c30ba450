//! `strata-wasm-bindgen INPUT OUT_DIR [--version]`: what `wasm-bindgen --target web --out-dir
//! OUT_DIR INPUT` does, option for option (wasm-bindgen-cli's `rmain` with its defaults), so the
//! glue and the `_bg.wasm` are byte for byte the CLI's.

use std::process;

use wasm_bindgen_cli_support::Bindgen;

fn run(input: &str, out_dir: &str) -> anyhow::Result<()> {
    let mut b = Bindgen::new();
    b.web(true)?;
    #[allow(deprecated)]
    b.input_path(input)
        .nodejs(false)?
        .web(false)?
        .browser(false)?
        .no_modules(false)?
        .debug(false)
        .demangle(true)
        .keep_lld_exports(false)
        .keep_debug(false)
        .split_debug_info(false)
        .remove_name_section(false)
        .remove_producers_section(false)
        .typescript(true)
        .omit_imports(false)
        .omit_default_module_path(false)
        .split_linked_modules(false)
        .js_string_builtins(false)
        .ts_typed_array_buffers(false)
        .reference_types(false)
        .reset_state_function(false)
        .force_enable_abort_handler(false);
    b.generate(out_dir)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [v] if v == "--version" => println!("strata-wasm-bindgen {}", env!("CARGO_PKG_VERSION")),
        [input, out_dir] => {
            if let Err(e) = run(input, out_dir) {
                eprintln!("error: {e:?}");
                process::exit(1);
            }
        }
        _ => {
            eprintln!("usage: strata-wasm-bindgen INPUT.wasm OUT_DIR (wasm-bindgen --target web)");
            process::exit(2);
        }
    }
}

use super::*;

/// A project at a temporary folder with the given files (`""` content for a folder marker).
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (relative, content) in files {
        let path = dir.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    dir
}

fn verdict(dir: &tempfile::TempDir, file: &str, specifier: &str) -> Verdict {
    let resolver = NodeResolver::default();
    let path = dir.path().join(file);
    let around = resolver.surroundings(&path, dir.path());
    resolver.resolve(&path, specifier, &around)
}

#[test]
fn package_names_and_aliases() {
    assert_eq!(package_name("a"), Some(("a", "")));
    assert_eq!(package_name("a/b/c"), Some(("a", "b/c")));
    assert_eq!(package_name("@s/p/x"), Some(("@s/p", "x")));
    assert_eq!(package_name("lodash.get"), Some(("lodash.get", "")));
    for alias in ["@/components/x", "~/utils", "$lib/x", "@s", "_private"] {
        assert_eq!(package_name(alias), None, "{alias}");
    }
}

#[test]
fn relative_files_as_typescript_finds_them() {
    let dir = project(&[
        ("package.json", "{}"),
        ("src/a.ts", ""),
        ("src/util.ts", ""),
        ("src/lib/index.tsx", ""),
        ("src/data.json", ""),
        ("src/esm.mts", ""),
    ]);
    for found in [
        "./util",
        "./util.js",
        "./lib",
        "./data.json",
        "../src/util",
        "./esm.mjs",
    ] {
        assert_eq!(
            verdict(&dir, "src/a.ts", found),
            Verdict::Resolves,
            "{found}"
        );
    }
    assert_eq!(
        verdict(&dir, "src/a.ts", "./utils"),
        Verdict::Missing(Missing::File)
    );
    assert_eq!(
        verdict(&dir, "src/a.ts", "./x.svg?react"),
        Verdict::Unsure(Unsure::BundlerAlias)
    );
}

/// Real-code round 5: vite's browser-field playground imports `./ext` and `./ext-index/index.js`,
/// files that exist only as keys of its package.json's `browser` object.
#[test]
fn relative_files_the_browser_object_maps_give_no_verdict() {
    let dir = project(&[
        (
            "package.json",
            r#"{"main":"out/cjs.js","browser":{"./ext.js":"./out/esm.js","./ext-index/index.js":"./out/esm.js","jsdom":false}}"#,
        ),
        ("out/esm.js", ""),
        ("src/relative.js", ""),
    ]);
    for mapped in [
        "../ext",
        "../ext.js",
        "../ext-index/index.js",
        "../ext-index",
    ] {
        assert_eq!(
            verdict(&dir, "src/relative.js", mapped),
            Verdict::Unsure(Unsure::BundlerAlias),
            "{mapped}"
        );
    }
    // A file the object does not name is still missing.
    for missing in ["../exts", "./ext", "../jsdom"] {
        assert_eq!(
            verdict(&dir, "src/relative.js", missing),
            Verdict::Missing(Missing::File),
            "{missing}"
        );
    }
}

#[test]
fn installed_declared_and_missing_packages() {
    let dir = project(&[
        (
            "package.json",
            r#"{"name":"app","dependencies":{"left":"1"}}"#,
        ),
        ("node_modules/react/package.json", "{}"),
        ("node_modules/@types/estree/index.d.ts", ""),
        ("node_modules/@types/babel__core/index.d.ts", ""),
        ("src/a.ts", ""),
    ]);
    for found in [
        "react",
        "estree",
        "@babel/core",
        "fs",
        "fs/promises",
        "node:test",
        "app/x",
    ] {
        assert_eq!(
            verdict(&dir, "src/a.ts", found),
            Verdict::Resolves,
            "{found}"
        );
    }
    assert!(matches!(
        verdict(&dir, "src/a.ts", "left"),
        Verdict::NotHere(NotHere::DeclaredNotInstalled { .. })
    ));
    assert_eq!(
        verdict(&dir, "src/a.ts", "fetch-retryx"),
        Verdict::Missing(Missing::Package)
    );
    for unsure in [
        "https://esm.sh/x",
        "virtual:pwa",
        "#internal",
        "assertClassBrand",
    ] {
        assert!(
            matches!(verdict(&dir, "src/a.ts", unsure), Verdict::Unsure(_)),
            "{unsure}"
        );
    }
}

#[test]
fn nothing_installed_only_warns() {
    let dir = project(&[
        ("package.json", r#"{"devDependencies":{"vitest":"1"}}"#),
        ("a.ts", ""),
    ]);
    assert_eq!(
        verdict(&dir, "a.ts", "fetch-retryx"),
        Verdict::NotHere(NotHere::NothingInstalled)
    );
    assert_eq!(verdict(&dir, "a.ts", "vitest"), Verdict::Resolves);
}

#[test]
fn what_car_cannot_see_gives_no_verdict() {
    let installed = ("node_modules/x/package.json", "{}");
    let cases = [
        (
            "vite.config.ts",
            "export default { resolve: { alias: { a: '/src' } } }",
        ),
        (
            "jest.config.js",
            "module.exports = { moduleNameMapper: {} }",
        ),
        (".pnp.cjs", ""),
        ("nuxt.config.ts", "export default {}"),
    ];
    for (file, content) in cases {
        let dir = project(&[
            ("package.json", "{}"),
            installed,
            (file, content),
            ("a.ts", ""),
        ]);
        assert!(
            matches!(verdict(&dir, "a.ts", "fetch-retryx"), Verdict::Unsure(_)),
            "{file}"
        );
    }
    let dir = project(&[("package.json", "{"), installed, ("a.ts", "")]);
    assert_eq!(
        verdict(&dir, "a.ts", "fetch-retryx"),
        Verdict::Unsure(Unsure::Unreadable)
    );
    let dir = project(&[installed, ("a.ts", "")]);
    assert_eq!(
        verdict(&dir, "a.ts", "fetch-retryx"),
        Verdict::Unsure(Unsure::NotAProject)
    );
    // A vite configuration that maps nothing changes nothing.
    let dir = project(&[
        ("package.json", "{}"),
        installed,
        ("vite.config.ts", "export default { plugins: [] }"),
        ("a.ts", ""),
    ]);
    assert_eq!(
        verdict(&dir, "a.ts", "fetch-retryx"),
        Verdict::Missing(Missing::Package)
    );
}

#[test]
fn tsconfig_paths_and_base_url() {
    let dir = project(&[
        ("package.json", "{}"),
        ("node_modules/x/package.json", "{}"),
        (
            "tsconfig.json",
            r#"{"compilerOptions":{"baseUrl":"src","paths":{"@app/*":["app/*"],"@gen/*":["generated/*"]}}}"#,
        ),
        ("src/app/util.ts", ""),
        ("src/shared/log.ts", ""),
        ("src/a.ts", ""),
    ]);
    assert_eq!(verdict(&dir, "src/a.ts", "@app/util"), Verdict::Resolves);
    assert_eq!(verdict(&dir, "src/a.ts", "shared/log"), Verdict::Resolves);
    assert_eq!(
        verdict(&dir, "src/a.ts", "@gen/api"),
        Verdict::Unsure(Unsure::TsconfigPaths)
    );
    assert_eq!(
        verdict(&dir, "src/a.ts", "fetch-retryx"),
        Verdict::Missing(Missing::Package)
    );
}

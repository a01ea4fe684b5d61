use super::*;

#[test]
fn atomic_write_and_append() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/data.json");
    write_atomic(&path, b"{}").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
    let log = dir.path().join("log.jsonl");
    append_line(&log, "{\"a\":1}", HOOK_LOCK_WAIT).unwrap();
    append_line(&log, "{\"a\":2}", HOOK_LOCK_WAIT).unwrap();
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 2);
}

#[cfg(unix)]
#[test]
fn a_rewrite_keeps_mode_and_writes_through_a_symlink() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("team/lessons.json");
    write_atomic(&shared, b"{}").unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o664)).unwrap();
    let link = dir.path().join("lessons.json");
    std::os::unix::fs::symlink("team/lessons.json", &link).unwrap();
    write_atomic(&link, b"{\"lessons\": []}").unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(&shared).unwrap(),
        "{\"lessons\": []}"
    );
    let mode = std::fs::metadata(&shared).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o664);
    let fresh = dir.path().join("new.json");
    write_atomic(&fresh, b"{}").unwrap();
    let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
    assert_ne!(
        mode, 0o600,
        "a new file gets the usual mode, not a temporary file's"
    );
}

#[test]
fn an_append_after_a_torn_line_starts_on_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    std::fs::write(&log, "{\"a\":1}\n{\"a\":").unwrap();
    append_line(&log, "{\"a\":3}", HOOK_LOCK_WAIT).unwrap();
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "{\"a\":1}\n{\"a\":\n{\"a\":3}\n"
    );
}

#[test]
fn lock_times_out_while_held() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.json");
    let _held = FileLock::acquire(&path, HOOK_LOCK_WAIT).unwrap();
    let second = FileLock::acquire(&path, Duration::from_millis(20));
    assert!(matches!(second, Err(FileError::LockTimeout { .. })));
}

#[cfg(unix)]
#[test]
fn only_regular_files_are_read_and_never_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let started = Instant::now();
    assert!(matches!(
        read_bounded(&fifo, 10),
        Err(FileError::NotRegular { kind: "a FIFO", .. })
    ));
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(matches!(
        read_bounded(Path::new("/dev/zero"), 10),
        Err(FileError::NotRegular {
            kind: "a device",
            ..
        })
    ));
    let big = dir.path().join("big");
    File::create(&big).unwrap().set_len(1 << 40).unwrap();
    assert!(matches!(
        read_bounded(&big, 10),
        Err(FileError::TooLarge { .. })
    ));
    assert_eq!(read_tail(&big, 4).unwrap(), vec![0; 4]);
}

#[cfg(unix)]
#[test]
fn links_in_a_state_folder_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("target.txt"), "secret").unwrap();
    let state = dir.path().join("p/.claude/claude-auto-review");
    std::fs::create_dir_all(&state).unwrap();
    let link = state.join("state.jsonl");
    std::os::unix::fs::symlink(outside.join("target.txt"), &link).unwrap();
    assert!(matches!(read_optional(&link), Err(FileError::Link { .. })));
    let appended = append_line(&link, "x", HOOK_LOCK_WAIT);
    assert!(matches!(appended, Err(FileError::Link { .. })));
    assert!(matches!(
        write_atomic(&link, b"x"),
        Err(FileError::Link { .. })
    ));
    std::os::unix::fs::symlink(&outside, state.join("clients")).unwrap();
    let below = state.join("clients/s/events.jsonl");
    assert!(matches!(
        append_line(&below, "x", HOOK_LOCK_WAIT),
        Err(FileError::Link { .. })
    ));
    assert!(matches!(
        FileLock::acquire(&state.join("clients/x"), HOOK_LOCK_WAIT),
        Err(FileError::Link { .. })
    ));
    assert_eq!(
        std::fs::read_to_string(outside.join("target.txt")).unwrap(),
        "secret"
    );
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    // Outside a state folder a link is an ordinary path.
    assert_eq!(
        read_optional(&dir.path().join("outside/../outside/target.txt"))
            .unwrap()
            .as_deref(),
        Some("secret")
    );
}

#[test]
fn line_and_column() {
    assert_eq!(line_col("ab\ncd", 4), (2, 2));
    assert_eq!(line_col("ab", 0), (1, 1));
}

#[test]
fn the_state_folder_is_found_component_by_component() {
    let parts: Vec<_> = Path::new(STATE_DIR).iter().collect();
    assert_eq!(
        parts, STATE_DIR_PARTS,
        "STATE_DIR_PARTS must spell STATE_DIR"
    );
    let cases: [(&str, Option<usize>); 9] = [
        ("/p/.claude/claude-auto-review/sessions/a.jsonl", Some(2)),
        ("/p/.claude/claude-auto-review", Some(2)),
        (".claude/claude-auto-review/lessons.json", Some(0)),
        ("/p/.claude", None),
        ("/p/.claude/settings.json", None),
        ("/p/claude-auto-review/.claude/x", None),
        ("/a/.claude/other/.claude/claude-auto-review/y", Some(4)),
        ("/p/.claude/claude-auto-review-old/x", None),
        ("", None),
    ];
    for (path, start) in cases {
        assert_eq!(state_folder_start(Path::new(path)), start, "{path}");
        assert_eq!(
            is_in_state_folder(Path::new(path)),
            start.is_some(),
            "{path}"
        );
    }
}

#!/usr/bin/env node
// The `car` command of the npm package car-hooks: starts the car binary of this platform's
// package (@car-hooks/linux-x64, …, an optional dependency npm installs only where it fits) with
// the same arguments, input and output, and exits as it does. It holds no binary itself.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

function platformPackage() {
  const { platform, arch } = process;
  let libc = "";
  if (platform === "linux") {
    // The binary is linked against glibc; a musl system needs its own package.
    const report = process.report && process.report.getReport();
    const glibc = report && report.header && report.header.glibcVersionRuntime;
    if (!glibc) libc = "-musl";
  }
  return `@car-hooks/${platform}-${arch}${libc}`;
}

function binaryPath(name) {
  const executable = process.platform === "win32" ? "car.exe" : "car";
  try {
    return path.join(path.dirname(require.resolve(`${name}/package.json`)), "bin", executable);
  } catch {
    return null;
  }
}

const name = platformPackage();
const binary = binaryPath(name);
if (!binary) {
  process.stderr.write(
    `error: car-hooks has no binary for this platform: the package ${name} is not installed ` +
      `(npm installs it with car-hooks where it exists; reinstall without --omit=optional or ` +
      `--no-optional). Elsewhere, build car from source (see its README).\n`,
  );
  process.exit(2);
}

const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  process.stderr.write(`error: cannot start ${binary}: ${result.error.message}\n`);
  process.exit(2);
}
if (result.signal) {
  process.kill(process.pid, result.signal);
}
process.exit(result.status === null ? 2 : result.status);

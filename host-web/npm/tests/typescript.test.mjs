// The package's TypeScript declarations type-check the examples (tsc --noEmit, strict), and
// the examples' @ts-expect-error lines prove a wrong request is refused at compile time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join, dirname } from "node:path";
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { packageDir, requirePackage } from "./vectors.mjs";

const here = dirname(fileURLToPath(import.meta.url));

test("tsc --noEmit accepts the examples against the package's .d.ts files", () => {
  requirePackage();
  // Installed as npm would place it, so the package's own `exports` and module types decide
  // what resolves (node16/nodenext resolution, as a project today uses it).
  const modules = join(here, "../example/node_modules");
  rmSync(modules, { recursive: true, force: true });
  mkdirSync(modules);
  symlinkSync(packageDir, join(modules, "baton-core"), "dir");
  const tsc = join(here, "../node_modules/typescript/bin/tsc");
  const run = spawnSync(process.execPath, [tsc, "--noEmit", "-p", join(here, "../example")], { encoding: "utf8" });
  assert.equal(run.status, 0, `tsc failed:\n${run.stdout}${run.stderr}`);
});
